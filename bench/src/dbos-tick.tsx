import {
  type AgateEvent,
  createMemoryStore,
  createSession,
  System,
  Timeline,
  Tool,
  User,
} from '@agate/core';
import { createClient, launchWorker } from '@agate/dbos';
import { postgresBinDir, scriptedModel, startPostgres } from '@agate/testing';
import { z } from 'zod';
import { median, roundOrder, type Summary, summarize } from './stats.js';

/** A tick through `@agate/dbos` may cost at most this many ms more than in process (median). */
export const DBOS_TICK_EXTRA_TARGET_MS = 15;
const TICKS = 20;

export interface DbosTickResult {
  reps: number;
  /** Rounds per repetition (a round runs each side once, back to back). */
  rounds: number;
  ticks: number;
  /** Each repetition's fastest run's median ms per tick, in process, memory store. */
  memory: Summary;
  /** The same through a worker (steps and saves in PostgreSQL, fsync on). */
  dbos: Summary;
  /** dbos − memory per repetition (judged). */
  extra: Summary;
}

/**
 * Runs of each side per repetition, round-robin over the repetitions as the other target rows
 * (see tick-overhead.ts). An fsync waits on a disk other machines share: one run's median tick
 * moved by half between neighbouring runs (a single pair per repetition once read +14.9 ms where
 * the others read +8.5 to +13), and the noise only ever adds time.
 */
export const DBOS_ROUNDS = 3;

function Agent() {
  return (
    <>
      <System>You take notes, one a tick.</System>
      <User>Take the notes.</User>
      <Timeline />
      <Tool
        name="note"
        description="Take a note"
        input={z.object({ text: z.string() })}
        execute={({ text }) => `noted: ${text}`}
      />
    </>
  );
}

/** Each tick: one model call and one tool call; the last tick answers. */
function model() {
  return scriptedModel(
    [
      ({ options }) =>
        options.prompt.filter((m) => m.role === 'tool').length >= TICKS - 1
          ? 'Done.'
          : { toolCalls: [{ toolName: 'note', input: { text: 'a note of ordinary length' } }] },
    ],
    { whenExhausted: 'repeat-last' },
  );
}

/**
 * The median tick of a run, in ms: each tick from the previous tick's end (the first from its
 * own start) to its end, so everything between two ticks (saves, steps) is counted. The median,
 * as the target says: one tick stalled by the shared machine does not move it.
 */
function tickClock() {
  let previous: number | undefined;
  const ticks: number[] = [];
  return {
    onEvent: (event: AgateEvent) => {
      if (event.type === 'tick:start') previous ??= performance.now();
      if (event.type === 'tick:end') {
        const now = performance.now();
        ticks.push(now - (previous ?? now));
        previous = now;
      }
    },
    perTick: () => median(ticks),
  };
}

/**
 * The same 20-tick run (a model call and a tool call a tick) in process on a memory store and
 * through a `@agate/dbos` worker in this process on a private PostgreSQL with fsync on,
 * alternating. Undefined without PostgreSQL.
 */
export async function measureDbosTick(reps: number): Promise<DbosTickResult | undefined> {
  if (process.env.DATABASE_URL === undefined && postgresBinDir() === undefined) return undefined;
  const server = await startPostgres({ private: true, fsync: true });
  let clock = tickClock();
  const worker = await launchWorker({
    databaseUrl: server.url,
    agents: {
      notes: {
        element: () => <Agent />,
        options: { model: model(), maxTicks: TICKS + 5, onEvent: (e) => clock.onEvent(e) },
      },
    },
    concurrency: 1,
    logLevel: 'error',
  });
  const client = await createClient({ databaseUrl: server.url });
  try {
    const inProcess = async () => {
      const c = tickClock();
      await createSession(<Agent />, {
        model: model(),
        store: createMemoryStore(),
        maxTicks: TICKS + 5,
        onEvent: c.onEvent,
      }).run();
      return c.perTick();
    };
    let n = 0;
    const durable = async () => {
      clock = tickClock();
      const run = await client.startRun({ agent: 'notes', sessionId: `bench-${n++}` });
      const result = await run.result();
      if (result.status !== 'completed') throw new Error(`the durable run ended ${result.status}`);
      return clock.perTick();
    };
    await inProcess();
    await durable();
    const memory = Array.from({ length: reps }, () => Number.POSITIVE_INFINITY);
    const dbos = Array.from({ length: reps }, () => Number.POSITIVE_INFINITY);
    for (let round = 0; round < DBOS_ROUNDS; round++) {
      for (const i of roundOrder(reps, round)) {
        if ((i + round) % 2 === 0) {
          memory[i] = Math.min(memory[i]!, await inProcess());
          dbos[i] = Math.min(dbos[i]!, await durable());
        } else {
          dbos[i] = Math.min(dbos[i]!, await durable());
          memory[i] = Math.min(memory[i]!, await inProcess());
        }
      }
    }
    return {
      reps,
      rounds: DBOS_ROUNDS,
      ticks: TICKS,
      memory: summarize(memory),
      dbos: summarize(dbos),
      extra: summarize(dbos.map((d, i) => d - memory[i]!)),
    };
  } finally {
    await client.close();
    await worker.shutdown();
    await server.stop();
  }
}
