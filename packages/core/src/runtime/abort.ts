import { AgateError } from '../ground/agate-error.js';
import { errorMessage } from '../ground/thrown.js';
import { withProviderDetails } from './fault.js';
import { callModel, type ModelCallOptions, type ModelTurn } from './model-call.js';
import { ModelCallError } from './runtime-errors.js';

/**
 * The reason of an `aborted` run. When the signal that fired is the session's own `signal`
 * option, it stays aborted, so a bare `run()` would end `aborted` again at once: say how to
 * resume instead (a fresh signal for the run).
 */
export function abortedReason(signal: AbortSignal, sessionSignal: boolean): string {
  const why = signal.reason !== undefined ? `: ${errorMessage(signal.reason)}` : '';
  const resume = sessionSignal
    ? ", with a fresh signal (run({ signal })): the session's own signal option stays aborted"
    : '';
  return `The run was aborted${why}. Call run() again to resume from the last completed tick${resume}.`;
}

/**
 * Settles with `work`, or rejects with the signal's reason as soon as it aborts — whichever
 * comes first. Code that ignores its abort signal (a stuck shell command, a hung HTTP call, a
 * provider that never answers) therefore cannot keep a run from returning. What `work` does
 * later is dropped: a late result never reaches the caller and a late rejection is swallowed.
 */
export function untilAborted<T>(work: PromiseLike<T>, signal: AbortSignal): Promise<T> {
  const promise = Promise.resolve(work);
  // Nothing to race: no one can abort it (and no abort listener is added to it).
  if (unabortable.has(signal)) return promise;
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  const waiting = waitersOf(signal);
  return new Promise<T>((resolve, reject) => {
    waiting.add(reject);
    promise.then(
      (value) => {
        waiting.delete(reject);
        resolve(value);
      },
      (error: unknown) => {
        waiting.delete(reject);
        reject(error);
      },
    );
  });
}

/**
 * Calls `stop` with the signal's reason when it aborts, through the signal's one shared
 * listener (see below); returns the way to stop waiting. For a signal not aborted yet.
 */
export function onAbort(signal: AbortSignal, stop: (reason: unknown) => void): () => void {
  if (unabortable.has(signal)) return stopNothing;
  const waiting = waitersOf(signal);
  waiting.add(stop);
  return () => waiting.delete(stop);
}

const stopNothing = (): void => {};

/**
 * Signals whose controller no one holds: a run's or a tick's own, when the caller gave none.
 * They never abort, so racing work against them (a promise layer per model call, an abort
 * listener per run: a tenth of Agate's own work in a short run, issue 51 item 2) is skipped.
 */
const unabortable = new WeakSet<AbortSignal>();

/** A signal that never aborts, for a run or tick given none (see `unabortable`). */
export function neverAbortedSignal(): AbortSignal {
  const { signal } = new AbortController();
  unabortable.add(signal);
  return signal;
}

/**
 * The races waiting on a signal. One abort listener per signal, added the first time, rejects
 * them all: a run makes one race per model call and per asynchronous tool call, and adding and
 * removing an event listener each time cost more than the race itself.
 */
const waiters = new WeakMap<AbortSignal, Set<(reason: unknown) => void>>();

function waitersOf(signal: AbortSignal): Set<(reason: unknown) => void> {
  let waiting = waiters.get(signal);
  if (waiting === undefined) {
    const set = new Set<(reason: unknown) => void>();
    signal.addEventListener(
      'abort',
      () => {
        for (const reject of set) reject(signal.reason);
        set.clear();
      },
      { once: true },
    );
    waiters.set(signal, set);
    waiting = set;
  }
  return waiting;
}

/**
 * The tick's model call, returning as soon as the run's signal aborts even if the provider
 * (or a test model) ignores the signal. Deltas that arrive after the abort are not reported,
 * and provider errors keep their status code and retry count (`withProviderDetails`).
 */
export async function callModelUntilAborted(options: ModelCallOptions): Promise<ModelTurn> {
  const { signal } = options;
  const onDelta: ModelCallOptions['onDelta'] = (kind, delta) => {
    if (!signal.aborted) options.onDelta(kind, delta);
  };
  try {
    return await untilAborted(callModel({ ...options, onDelta }), signal);
  } catch (error) {
    signal.throwIfAborted();
    // A stream that breaks off (a dropped connection) throws from the read loop itself.
    const failed = AgateError.isInstance(error)
      ? error
      : new ModelCallError(`The model call failed: ${errorMessage(error)}`, { cause: error });
    throw withProviderDetails(failed);
  }
}
