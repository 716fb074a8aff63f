import { createSession, type SessionState, System, Timeline, Tool, User } from '@agate/core';
import { createSnapshot } from '@agate/core/stores';
import { createPostgresStore } from '@agate/postgres';
import { postgresBinDir, scriptedModel, startPostgres } from '@agate/testing';
import { z } from 'zod';
import { type Summary, summarize } from './stats.js';

/** Saving tick 2,000 of a session may cost at most this many times saving tick 10. */
export const POSTGRES_SAVE_RATIO_TARGET = 2;
/** Pairs per block of the judged spread: one slow fsync moves a block's median, not a verdict. */
const BLOCK = 8;

export interface PostgresSaveResult {
  reps: number;
  /** `session.save()`'s work for tick 10 over the stored tick 9, ms (wall time, fsync on). */
  tick10: Summary;
  /** The same for tick 2,000 (and the next ones) over the tick before, ms. */
  tick2000: Summary;
  /** tick 2,000 / tick 10 per pair; `blocks`: the medians of blocks of 8 pairs (judged). */
  ratio: Summary;
  blocks: Summary;
  /** Timeline messages at tick 2,000. */
  messages: number;
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

/** A real session's states at the ends of ticks 9 and 10, and of ticks 1,999 to 1,999 + `after`. */
async function states(after: number): Promise<Map<number, SessionState>> {
  const last = 1_999 + after;
  const wanted = (tick: number) => tick === 9 || tick === 10 || tick >= 1_999;
  const taken = new Map<number, SessionState>();
  const model = scriptedModel(
    [
      (call) => ({
        toolCalls: [
          {
            toolName: 'note',
            input: {
              text: `note ${call.options.prompt.length} with a sentence of ordinary length in it`,
            },
          },
        ],
        usage: { inputTokens: 200, outputTokens: 20 },
      }),
    ],
    { whenExhausted: 'repeat-last' },
  );
  const session = createSession(<Agent />, {
    model,
    id: 'bench',
    maxTimelineMessages: 100_000,
    onEvent: (event) => {
      if (event.type === 'tick:end' && wanted(event.tick)) {
        // The state itself (frozen): the timed part snapshots it as `session.save()` does.
        taken.set(event.tick, session.state);
      }
    },
  });
  const result = await session.run({ maxTicks: last });
  if (!taken.has(last))
    throw new Error(`the session ended ${result.status} at ${result.totalTicks}`);
  return taken;
}

/**
 * The Postgres store's incremental save: a private server with fsync on, a real session's
 * states, each saved as `session.save()` does (a snapshot sharing the frozen state, then
 * `store.save`, both timed). Short: tick 9 is stored (untimed), then tick 10's save is timed. Long: the
 * session is stored at tick 1,999, then each pair times the save of the next tick over the
 * one stored (2,000, 2,001, …), as a run saving every tick does. Alternating which goes
 * first. Undefined without PostgreSQL.
 */
export async function measurePostgresSave(reps: number): Promise<PostgresSaveResult | undefined> {
  // A private server: fsync must be on, which a DATABASE_URL server may not have.
  if (postgresBinDir() === undefined) return undefined;
  const warmup = 3;
  const taken = await states(warmup + reps);
  const server = await startPostgres({ private: true, fsync: true });
  const store = createPostgresStore({ connectionString: server.url }, { schema: 'bench' });
  try {
    // What `session.save(label)` does: a snapshot sharing the frozen state, then the store.
    const save = (tick: number, id: string) =>
      store.save(createSnapshot(id, taken.get(tick)!, `tick ${tick}`, { shareFrozen: true }));
    const time = async (tick: number, id: string) => {
      const started = performance.now();
      await save(tick, id);
      return performance.now() - started;
    };
    const shortOnce = async () => {
      await save(9, 'short');
      return time(10, 'short');
    };
    let tick = 1_999;
    await save(tick, 'long');
    const longOnce = () => time(++tick, 'long');
    for (let i = 0; i < warmup; i++) {
      await shortOnce();
      await longOnce();
    }
    const short: number[] = [];
    const long: number[] = [];
    for (let i = 0; i < reps; i++) {
      if (i % 2 === 0) {
        short.push(await shortOnce());
        long.push(await longOnce());
      } else {
        long.push(await longOnce());
        short.push(await shortOnce());
      }
    }
    const ratios = long.map((v, i) => v / short[i]!);
    const blocks: number[] = [];
    for (let i = 0; i + BLOCK <= ratios.length; i += BLOCK) {
      blocks.push(summarize(ratios.slice(i, i + BLOCK)).median);
    }
    const state = taken.get(2_000)!;
    // How much of a save is the session row (everything but the lists kept as rows).
    const head = JSON.stringify({
      ...state,
      timeline: [],
      progress: { ...state.guards.continue, callSignatures: [] },
    }).length;
    if (process.env.AGATE_BENCH_DEBUG) process.stderr.write(`head at tick 2000: ${head} chars\n`);
    return {
      reps,
      tick10: summarize(short),
      tick2000: summarize(long),
      ratio: summarize(ratios),
      blocks: summarize(blocks.length > 0 ? blocks : ratios),
      messages: state.timeline.length,
    };
  } finally {
    await store.close();
    await server.stop();
  }
}
