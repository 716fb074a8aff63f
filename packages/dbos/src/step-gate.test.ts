import { describe, expect, it } from 'vitest';
import { StepGate } from './step-gate.js';

const later = <T>(ms: number, value: T) =>
  new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('StepGate', () => {
  it('close waits for the steps in flight, and no step starts after it', async () => {
    const gate = new StepGate();
    const inFlight = gate.run(() => later(30, 'recorded'));
    const closed = gate.close(5_000);
    let started = false;
    void gate.run(async () => {
      started = true;
    });
    expect(await closed).toBe(true);
    expect(await inFlight).toBe('recorded');
    await later(20, null);
    expect(started).toBe(false);
  });

  it('gives up on a step longer than the grace', async () => {
    const gate = new StepGate();
    void gate.run(() => later(1_000, null));
    expect(await gate.close(20)).toBe(false);
  });

  it('closes at once with nothing in flight', async () => {
    expect(await new StepGate().close(10_000)).toBe(true);
  });
});
