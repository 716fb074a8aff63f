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
import { median, type Summary, summarize } from './stats.js';

/** A tick through `@agate/dbos` may cost at most this many ms more than in process (median). */
export const DBOS_TICK_EXTRA_TARGET_MS = 15;
const TICKS = 20;

export interface DbosTickResult {
  reps: number;
  ticks: number;
  /** Median ms per tick of each run, in process, memory store. */
  memory: Summary;
  /** Median ms per tick of each run through a worker (steps and saves in PostgreSQL, fsync on). */
  dbos: Summary;
  /** dbos − memory per alternating pair (judged). */
  extra: Summary;
}

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
    const memory: number[] = [];
    const dbos: number[] = [];
    for (let i = 0; i < reps; i++) {
      if (i % 2 === 0) {
        memory.push(await inProcess());
        dbos.push(await durable());
      } else {
        dbos.push(await durable());
        memory.push(await inProcess());
      }
    }
    return {
      reps,
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
