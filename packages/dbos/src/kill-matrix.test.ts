import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approveCheckpoint, approveToolCall, type SessionState } from '@agate/core';
import { createPostgresStore, type PostgresStore } from '@agate/postgres';
import { requirePostgres, scaledLimit, startPostgres, type TestPostgres } from '@agate/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cell, MATRIX_STEPS, matrixCells } from './__fixtures__/kill-matrix.js';
import {
  lines,
  MATRIX_WORKER,
  startWorkerProcess,
  type WorkerProcess,
} from './__fixtures__/processes.js';
import { type Client, createClient, type DurableRunResult, type RunHandle } from './index.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** One worker process serves every cell (a second would only cost a second start). */
const EXECUTORS = ['matrix'];
/**
 * From the worker's "ready", how long the runs have to reach their points, and then to end:
 * 60 s each on an idle machine, scaled by the machine's measured speed (another process
 * taking the core doubles it).
 */
const PARK_MS = scaledLimit(60_000);
const FINISH_MS = scaledLimit(60_000);

/**
 * The property behind issue #38, not its one case: a durable run of an agent with model calls,
 * tool calls, a checkpoint and a held tool call, its worker SIGKILLed at every point of it —
 * before, during and after each step, and while it waits — with each wait's decision made before
 * the kill, while no worker runs, or after the restart. All cells run at once on one PostgreSQL
 * and one worker process: each run parks at its point (a step probe, no sleeps), the worker is
 * SIGKILLed once every run is parked, the held decisions are made, and a worker starts again
 * under the same executor id (DBOS recovers its runs at launch).
 */
describe.skipIf(!requirePostgres('durable kill matrix (@agate/dbos)'))('the kill matrix', () => {
  let server: TestPostgres;
  let client: Client;
  let store: PostgresStore;
  let db: pg.Client;
  let dir: string;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    server = await startPostgres();
    dir = mkdtempSync(join(tmpdir(), 'agate-kill-matrix-'));
    client = await createClient({ databaseUrl: server.url });
    store = createPostgresStore({ connectionString: server.url });
    db = new pg.Client({ connectionString: server.url });
    await db.connect();
  }, scaledLimit(30_000));

  afterAll(async () => {
    for (const w of workers) w.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.exited));
    await db?.end();
    await store?.close();
    await client?.close();
    await server?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'every run completes with the uninterrupted run’s timeline, each tool call run once (twice only when killed during it)',
    async () => {
      // A tag keeps the session ids apart from another run's on a shared DATABASE_URL.
      const tag = randomUUID().slice(0, 6);
      const cells = matrixCells().map((c) => ({ ...c, sessionId: `${c.sessionId}-${tag}` }));
      const reference = `m-ref-${tag}`;
      const parked = new Set<string>();

      const startWorkers = async () => {
        const started = EXECUTORS.map((executor) =>
          startWorkerProcess(
            { DATABASE_URL: server.url, AGATE_TEST_LOG_DIR: dir, AGATE_TEST_EXECUTOR_ID: executor },
            {
              script: MATRIX_WORKER,
              onLine: (line) => {
                if (line.startsWith('parked ')) parked.add(line.slice('parked '.length));
              },
            },
          ),
        );
        workers.push(...started);
        await Promise.all(started.map((w) => w.ready));
      };

      // The person: decides each wait once, when its decision is due; a wait decided before and
      // pending again means a decision was lost.
      const decided = new Map<string, Set<number>>();
      const lost: string[] = [];
      /** Each stored revision's wait, read once (the loop asks every 50 ms). */
      const waits = new Map<string, 1 | 2 | undefined>();
      const decide = async (due: (sessionId: string, wait: 1 | 2) => boolean) => {
        for (const { id, revision } of await store.list({ status: 'awaiting-approval' })) {
          const key = `${id}@${String(revision)}`;
          if (!waits.has(key)) {
            const stored = await store.load(id);
            if (stored === undefined || stored.revision !== revision) continue;
            waits.set(key, pendingWait(stored.state as SessionState));
          }
          const wait = waits.get(key);
          if (wait === undefined) continue;
          const done = decided.get(id) ?? new Set<number>();
          decided.set(id, done);
          if (done.has(wait)) {
            if (!lost.includes(`${id} wait ${wait}`)) lost.push(`${id} wait ${wait}`);
            continue;
          }
          if (!due(id, wait)) continue;
          done.add(wait);
          if (wait === 1) await approveCheckpoint(store, id, 'T-1', { by: 'ada' });
          else await approveToolCall(store, id, `${id}-drop`, { by: 'ada' });
        }
      };
      const cellOf = new Map(cells.map((c) => [c.sessionId, c]));
      const held = (id: string, wait: number) => cellOf.get(id)?.heldWait === wait;

      const startedAt = Date.now();
      await startWorkers();
      // The limit counts from the worker's "ready": its start (tsx compiling it, DBOS launching)
      // is not the runs' way to their points.
      const parkingSince = Date.now();
      const handles = new Map<string, RunHandle>();
      for (const sessionId of [reference, ...cells.map((c) => c.sessionId)]) {
        handles.set(
          sessionId,
          await client.startRun({ agent: 'matrix', sessionId, input: { run: sessionId } }),
        );
      }

      // Round 1: every run goes to its point; decisions not held back are made as they come.
      const sleeps = async (): Promise<Map<string, number>> => {
        const { rows } = await db.query<{ workflow_uuid: string; n: string }>(
          `SELECT workflow_uuid, count(*) AS n FROM dbos.operation_outputs
         WHERE function_name = 'DBOS.sleep' GROUP BY workflow_uuid`,
        );
        return new Map(rows.map((r) => [r.workflow_uuid, Number(r.n)]));
      };
      const atPoint = async (cell: Cell, waiting: Map<string, number>) => {
        if ('index' in cell.point) return parked.has(cell.sessionId);
        const runId = handles.get(cell.sessionId)?.runId ?? '';
        return (waiting.get(runId) ?? 0) >= cell.point.wait;
      };
      let referenceDone: DurableRunResult | undefined;
      void handles
        .get(reference)
        ?.result()
        .then((r) => {
          referenceDone = r;
        });
      for (;;) {
        await decide((id, wait) => !held(id, wait));
        const waiting = await sleeps();
        const missing: string[] = [];
        for (const cell of cells) if (!(await atPoint(cell, waiting))) missing.push(cell.sessionId);
        if (missing.length === 0 && referenceDone !== undefined) break;
        if (Date.now() - parkingSince > PARK_MS) {
          const trail = lines(join(dir, 'steps.log')).filter((l) =>
            missing.some((m) => l.startsWith(`${m} `)),
          );
          throw new Error(
            `not at their kill points after ${PARK_MS} ms: ${missing.join(', ')}\n${trail.join('\n')}`,
          );
        }
        await sleep(50);
      }

      // The kill: every run at its point.
      const dead = workers.splice(0);
      for (const w of dead) w.kill('SIGKILL');
      await Promise.all(dead.map((w) => w.exited));
      await decide((id, wait) => held(id, wait) && cellOf.get(id)?.decision === 'nobody');
      await startWorkers();
      await decide((id, wait) => held(id, wait) && cellOf.get(id)?.decision === 'after');

      // Round 2: every run to its end, decisions made as they come.
      let finished = false;
      const results = Promise.all(
        cells.map((c) => handles.get(c.sessionId)?.result({ timeoutMs: FINISH_MS })),
      ).finally(() => {
        finished = true;
      });
      results.catch(() => {});
      while (!finished) {
        await decide(() => true);
        // A decision overwritten by a replay leaves its run waiting for good: fail now, not later.
        if (lost.length > 0) throw new Error(`decisions lost: ${lost.join(', ')}`);
        await sleep(50);
      }
      const ends = (await results) as DurableRunResult[];
      const wallMs = Date.now() - startedAt;

      // The uninterrupted run took every step, in order.
      const referenceSteps = lines(join(dir, 'steps.log'))
        .map((l) => l.split(' '))
        .filter(([session, , , phase]) => session === reference && phase === 'after')
        .map(([, , step]) => step);
      expect(referenceSteps).toEqual([...MATRIX_STEPS]);
      expect(referenceDone?.status).toBe('completed');
      const same = (value: unknown, sessionId: string) =>
        JSON.stringify(value).replaceAll(sessionId, 'RUN');
      const referenceTimeline = same(referenceDone?.timeline, reference);
      const storedReference = same(
        ((await store.load(reference))?.state as SessionState | undefined)?.timeline,
        reference,
      );

      const tools = countBy(lines(join(dir, 'tools.log')).map((l) => l.split(' ')[0] as string));
      const models = countBy(lines(join(dir, 'model.log')).map((l) => l.split(' ')[0] as string));
      const storedTimelines = await Promise.all(
        cells.map(
          async (c) =>
            ((await store.load(c.sessionId))?.state as SessionState | undefined)?.timeline,
        ),
      );
      const report = cells.map((cell, i) => {
        const end = ends[i] as DurableRunResult;
        const id = cell.sessionId;
        const duringStep = (name: string) =>
          'index' in cell.point &&
          cell.point.phase === 'during' &&
          MATRIX_STEPS[cell.point.index] === name;
        // Killed during a call: its answer was not recorded, so it ran again (at-least-once).
        const again = (index: number) =>
          'index' in cell.point && cell.point.phase === 'during' && cell.point.index === index
            ? 1
            : 0;
        return {
          id,
          status: end.status,
          timeline: same(end.timeline, id) === referenceTimeline,
          stored: same(storedTimelines[i], id) === storedReference,
          work: tools.get(`${id}-work`) === 1 + again(2),
          drop: tools.get(`${id}-drop`) === 1 + again(9),
          models: models.get(id) === 4 + (duringStep('agate:model') ? 1 : 0),
        };
      });
      const wrong = report.filter(
        (r) =>
          r.status !== 'completed' || !r.timeline || !r.stored || !r.work || !r.drop || !r.models,
      );
      expect(wrong).toEqual([]);
      expect(lost).toEqual([]);
      expect(cells.length).toBeGreaterThanOrEqual(3 * MATRIX_STEPS.length + 4);
      // The wall time, for the record (docs/durable.md quotes it).
      process.stdout.write(`kill matrix: ${cells.length} cells in ${wallMs} ms\n`);
      // Two worker starts (each well under a minute, even busy) besides the two limits.
    },
    PARK_MS + FINISH_MS + 120_000,
  );
});

/** The wait a stored session is in: 1 (checkpoint T-1 pending), 2 (the drop call held). */
function pendingWait(state: SessionState): 1 | 2 | undefined {
  if (state.guards.checkpoints.records['T-1']?.state === 'pending') return 1;
  if (state.guards.approvals.calls.some((c) => c.state === 'pending')) return 2;
  return undefined;
}

function countBy(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return counts;
}
