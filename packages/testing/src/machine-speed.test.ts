import { describe, expect, it } from 'vitest';
import { MAX_SLOWNESS, machineSpeed, scaledLimit, slownessOf } from './machine-speed.js';

describe('slownessOf', () => {
  it('is 1 on an idle core as fast as the reference', () => {
    expect(slownessOf(20, 20, 20)).toBe(1);
    // CPU time a tick above wall time, a core faster than the reference: still 1.
    expect(slownessOf(19, 20, 40)).toBe(1);
  });

  it('grows with the share of the core others take, and with a slower core', () => {
    expect(slownessOf(40, 20, 20)).toBe(2);
    expect(slownessOf(40, 40, 20)).toBe(2);
    expect(slownessOf(120, 40, 20)).toBe(6);
  });

  it('is bounded, and 1 for measurements that mean nothing', () => {
    expect(slownessOf(100_000, 1, 20)).toBe(MAX_SLOWNESS);
    expect(slownessOf(0, 20, 20)).toBe(1);
    expect(slownessOf(Number.NaN, 20, 20)).toBe(1);
    expect(slownessOf(20, -1, 20)).toBe(1);
  });
});

describe('scaledLimit', () => {
  it('scales by the measured slowness, never below the limit given', () => {
    const { slowness, wallMs, cpuMs } = machineSpeed();
    expect(wallMs).toBeGreaterThan(0);
    expect(cpuMs).toBeGreaterThan(0);
    expect(slowness).toBeGreaterThanOrEqual(1);
    expect(slowness).toBeLessThanOrEqual(MAX_SLOWNESS);
    expect(scaledLimit(1_000)).toBe(Math.ceil(1_000 * slowness));
    expect(scaledLimit(0)).toBe(0);
    // Measured once: the same figures on the next call.
    expect(machineSpeed()).toBe(machineSpeed());
  });

  it('refuses a limit that is not a finite, non-negative number', () => {
    expect(() => scaledLimit(-1)).toThrow(RangeError);
    expect(() => scaledLimit(Number.POSITIVE_INFINITY)).toThrow(/finite, non-negative/);
    expect(() => scaledLimit(Number.NaN)).toThrow(RangeError);
  });
});
