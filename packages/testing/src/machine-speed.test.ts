import { describe, expect, it } from 'vitest';
import {
  loadSlowness,
  MAX_SLOWNESS,
  machineSpeed,
  RUN_SLOWNESS_ENV,
  runSlowness,
  scaledLimit,
  slownessOf,
} from './machine-speed.js';

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

describe('loadSlowness', () => {
  it("is 1 when the load is the run's own start, or less", () => {
    expect(loadSlowness(0, 2)).toBe(1);
    expect(loadSlowness(1, 2)).toBe(1);
  });

  it('grows as others take cores: one of two busy doubles it, and it stops at 4', () => {
    expect(loadSlowness(2, 2)).toBe(2);
    expect(loadSlowness(1.5, 2)).toBeCloseTo(4 / 3);
    expect(loadSlowness(3, 2)).toBe(4);
    expect(loadSlowness(40, 2)).toBe(4);
    expect(loadSlowness(5, 8)).toBeCloseTo(8 / 4);
  });

  it('is 1 for readings that mean nothing', () => {
    expect(loadSlowness(Number.NaN, 2)).toBe(1);
    expect(loadSlowness(-1, 2)).toBe(1);
    expect(loadSlowness(3, 0)).toBe(1);
  });
});

describe('runSlowness', () => {
  it("takes the highest of the probe's, others' load's and the run's, within MAX_SLOWNESS", () => {
    // One core of two held by another process: the probe on the free core reads 1.
    expect(runSlowness(1, { loadAverage: 2, cores: 2 }, undefined)).toBe(2);
    // A probe that met the contention itself: not counted twice.
    expect(runSlowness(2, { loadAverage: 2, cores: 2 }, undefined)).toBe(2);
    // A worker: the run's figure, or its own probe's when higher; no load reading.
    expect(runSlowness(1, undefined, 2)).toBe(2);
    expect(runSlowness(3, undefined, 2)).toBe(3);
    expect(runSlowness(100, undefined, 2)).toBe(MAX_SLOWNESS);
    expect(runSlowness(1, undefined, Number.NaN)).toBe(1);
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
    // Handed to the processes this one starts (vitest's workers get the run's this way).
    expect(Number(process.env[RUN_SLOWNESS_ENV])).toBeGreaterThanOrEqual(1);
  });

  it('refuses a limit that is not a finite, non-negative number', () => {
    expect(() => scaledLimit(-1)).toThrow(RangeError);
    expect(() => scaledLimit(Number.POSITIVE_INFINITY)).toThrow(/finite, non-negative/);
    expect(() => scaledLimit(Number.NaN)).toThrow(RangeError);
  });
});
