import type { RunResult } from '@agate/core';
import type { DurableRunResult } from './options.js';

/** A `RunResult` as plain JSON, the form DBOS records as the workflow's output. */
export function toDurableResult(result: RunResult, ticks: number): DurableRunResult {
  const { error, events, ...rest } = result;
  return {
    ...rest,
    ticks,
    // Events hold only JSON by design; the copy drops anything a listener may have attached.
    events: JSON.parse(JSON.stringify(events)) as RunResult['events'],
    ...(error !== undefined
      ? {
          error: {
            name: error.name,
            message: error.message,
            ...(error.tick !== undefined ? { tick: error.tick } : {}),
            ...(error.step !== undefined ? { step: error.step } : {}),
          },
        }
      : {}),
  };
}
