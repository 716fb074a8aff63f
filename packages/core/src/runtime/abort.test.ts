import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { neverAbortedSignal, onAbort, untilAborted } from './abort.js';

const never = new Promise<never>(() => {});

describe('untilAborted', () => {
  it('rejects every race still waiting on the signal when it aborts, with its reason', async () => {
    const controller = new AbortController();
    const done = untilAborted(Promise.resolve('done'), controller.signal);
    await expect(done).resolves.toBe('done');
    const hung = [untilAborted(never, controller.signal), untilAborted(never, controller.signal)];
    const reason = new Error('stop');
    controller.abort(reason);
    for (const race of hung) await expect(race).rejects.toBe(reason);
    // The settled race kept its value.
    await expect(done).resolves.toBe('done');
  });

  it('passes on the work’s own failure, and rejects at once on a signal already aborted', async () => {
    const controller = new AbortController();
    await expect(
      untilAborted(Promise.reject(new Error('broke')), controller.signal),
    ).rejects.toThrow('broke');
    controller.abort('gone');
    await expect(untilAborted(Promise.resolve(1), controller.signal)).rejects.toBe('gone');
  });

  it('keeps racing on a signal used by many calls before (one listener for all of them)', async () => {
    const controller = new AbortController();
    for (let i = 0; i < 100; i++) await untilAborted(Promise.resolve(i), controller.signal);
    const hung = untilAborted(never, controller.signal);
    controller.abort('late');
    await expect(hung).rejects.toBe('late');
  });

  it('on a signal no one can abort (a run given none), settles with the work and adds no listener', async () => {
    const signal = neverAbortedSignal();
    await expect(untilAborted(Promise.resolve('done'), signal)).resolves.toBe('done');
    await expect(untilAborted(Promise.reject(new Error('broke')), signal)).rejects.toThrow('broke');
    const stop = onAbort(signal, () => {});
    stop();
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    // A signal someone holds the controller of is watched as before.
    const held = new AbortController().signal;
    await untilAborted(Promise.resolve(1), held);
    expect(getEventListeners(held, 'abort')).toHaveLength(1);
  });
});
