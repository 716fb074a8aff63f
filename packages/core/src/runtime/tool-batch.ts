import { isThenable } from '../ground/thenable.js';

/**
 * How one model response's tool calls run. Calls run one at a time, in the model's order, so a
 * knob set by an earlier call is visible to a later one and a guard may refuse the calls after a
 * boundary. A tool that declares `concurrency` (a sub-agent) is the exception: its calls start
 * when their turn comes, up to that many of the tool at once, and run alongside the calls after
 * them. Whatever ran when, `finish` sees every call in the model's order, so results enter the
 * timeline in call order.
 */
export interface ToolBatch<C, O> {
  /** How many calls of this call's tool may run at once; undefined: one at a time, in order. */
  concurrency(call: C): { key: string; limit: number } | undefined;
  start(call: C): Promise<O>;
  finish(call: C, outcome: O): void | Promise<void>;
}

interface Started<C, O> {
  call: C;
  promise: Promise<O>;
  settled: boolean;
}

export async function runToolBatch<C, O>(
  calls: readonly C[],
  batch: ToolBatch<C, O>,
): Promise<void> {
  const started: Started<C, O>[] = [];
  const running = new Map<string, Set<Promise<void>>>();
  let next = 0;
  const finishSettled = async () => {
    while (next < started.length && started[next]!.settled) {
      const entry = started[next++]!;
      await batch.finish(entry.call, await entry.promise);
    }
  };
  try {
    for (const call of calls) {
      const slot = batch.concurrency(call);
      if (slot === undefined) {
        const outcome = await batch.start(call);
        if (next === started.length) {
          // Every earlier call is finished (the usual case): this one's result goes in now,
          // awaited only when finishing is asynchronous (an `await` is a turn of its own).
          const finished = batch.finish(call, outcome);
          if (isThenable(finished)) await finished;
          continue;
        }
        started.push({ call, promise: Promise.resolve(outcome), settled: true });
      } else {
        let group = running.get(slot.key);
        if (group === undefined) {
          group = new Set();
          running.set(slot.key, group);
        }
        while (group.size >= Math.max(1, slot.limit)) await Promise.race(group);
        const entry: Started<C, O> = { call, promise: batch.start(call), settled: false };
        const members = group;
        const done: Promise<void> = entry.promise
          .then(
            () => undefined,
            () => undefined,
          )
          .finally(() => {
            entry.settled = true;
            members.delete(done);
          });
        members.add(done);
        started.push(entry);
      }
      if (next < started.length && started[next]!.settled) await finishSettled();
    }
    while (next < started.length) {
      const entry = started[next++]!;
      await batch.finish(entry.call, await entry.promise);
    }
  } finally {
    // A failure (an abort) leaves calls unfinished: their rejections are the run's, not unhandled.
    for (const entry of started.slice(next)) entry.promise.catch(() => {});
  }
}
