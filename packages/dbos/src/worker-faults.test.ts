import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requirePostgres, scaledLimit, startPostgres, type TestPostgres } from '@agate/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CALLS_PER_RUN } from './__fixtures__/counting-agent.js';
import {
  lines,
  overlaps,
  spans,
  startWorkerProcess,
  type WorkerProcess,
} from './__fixtures__/processes.js';
import { type Client, createClient, type DurableRunResult } from './index.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MODEL_CALLS_PER_RUN = CALLS_PER_RUN + 1;

/**
 * Real worker processes on one real PostgreSQL, killed with SIGKILL: nothing a run did is lost,
 * nothing is done twice except a call in flight at a kill, and no run runs in two places.
 */
describe.skipIf(!requirePostgres('durable worker fault tests (@agate/dbos)'))(
  'durable workers under faults',
  () => {
    let pg: TestPostgres;
    let client: Client;
    const dirs: string[] = [];
    const workers: WorkerProcess[] = [];

    beforeAll(async () => {
      // A server of its own: a test restarts it.
      pg = await startPostgres({ private: true });
      client = await createClient({ databaseUrl: pg.url });
    }, scaledLimit(30_000));

    // Each test's workers end with it: a live one would take the next test's runs.
    afterEach(() => stopWorkers());

    afterAll(async () => {
      await client?.close();
      await pg?.stop();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });

    /** Ends every worker of the test before the next (each test has its own log directory). */
    async function stopWorkers() {
      const gone = workers.splice(0);
      for (const w of gone) w.kill('SIGKILL');
      await Promise.all(gone.map((w) => w.exited));
    }

    function logDir(): string {
      const dir = mkdtempSync(join(tmpdir(), 'agate-dbos-faults-'));
      dirs.push(dir);
      return dir;
    }

    function worker(dir: string, env: Record<string, string> = {}): WorkerProcess {
      const w = startWorkerProcess({
        DATABASE_URL: pg.url,
        AGATE_TEST_LOG_DIR: dir,
        ...env,
      });
      workers.push(w);
      return w;
    }

    async function startRuns(prefix: string, count: number) {
      return Promise.all(
        Array.from({ length: count }, (_, i) =>
          client.startRun({
            agent: 'counting',
            sessionId: `${prefix}-${i}`,
            input: { run: `${prefix}-${i}` },
          }),
        ),
      );
    }

    function expectEveryCall(dir: string, prefix: string, count: number, kills: number) {
      const calls = lines(join(dir, 'calls.log'));
      for (let i = 0; i < count; i++) {
        for (let c = 1; c <= CALLS_PER_RUN; c++) expect(calls).toContain(`${prefix}-${i}-c${c}`);
      }
      expect(calls.length).toBeLessThanOrEqual(count * CALLS_PER_RUN + kills);
      const modelCalls = lines(join(dir, 'model.log'));
      expect(modelCalls.length).toBeGreaterThanOrEqual(count * MODEL_CALLS_PER_RUN);
      expect(modelCalls.length).toBeLessThanOrEqual(count * MODEL_CALLS_PER_RUN + kills);
    }

    it(
      'three workers, 30 runs, one worker SIGKILLed three times: every run completes, nothing is lost or run twice',
      async () => {
        const dir = logDir();
        // One run at a time per worker, so that a kill interrupts at most one call: the bound
        // "once per tick plus at most one per kill" (a worker running N at once may lose N; the
        // queue's worker concurrency is one value for all workers, docs/durable.md).
        const env = { AGATE_TEST_CONCURRENCY: '1', AGATE_TEST_DELAY_MS: '100' };
        const victimEnv = env;
        let victim = worker(dir, { ...victimEnv, AGATE_TEST_EXECUTOR_ID: 'victim' });
        const others = [
          worker(dir, { ...env, AGATE_TEST_EXECUTOR_ID: 'steady-1' }),
          worker(dir, { ...env, AGATE_TEST_EXECUTOR_ID: 'steady-2' }),
        ];
        await Promise.all([victim.ready, ...others.map((w) => w.ready)]);
        const handles = await startRuns('k', 30);
        const killedAt = new Map<number, number>();
        for (let kill = 0; kill < 3; kill++) {
          // A random moment while the victim holds a run (or soon after it started, if it has none).
          const since = Date.now();
          const mine = () =>
            lines(join(dir, 'spans.log')).some((l) => l.includes(` ${victim.pid} `));
          while (!mine() && Date.now() - since < 3_000) await sleep(20);
          await sleep(Math.random() * 400);
          victim.kill('SIGKILL');
          killedAt.set(victim.pid, Date.now());
          await victim.exited;
          // The same executor id: DBOS recovers the killed process's runs as this one starts.
          victim = worker(dir, { ...victimEnv, AGATE_TEST_EXECUTOR_ID: 'victim' });
          await victim.ready;
        }
        const results: DurableRunResult[] = await Promise.all(
          handles.map((h) => h.result({ timeoutMs: scaledLimit(60_000) })),
        );
        expect(results.map((r) => r.status)).toEqual(results.map(() => 'completed'));
        expectEveryCall(dir, 'k', 30, 3);
        expect(overlaps(spans(join(dir, 'spans.log'), killedAt))).toEqual([]);
      },
      scaledLimit(150_000),
    );

    it(
      'a worker killed for good: live workers take its runs over within recoveryAfterMs',
      async () => {
        const dir = logDir();
        const env = {
          AGATE_TEST_CONCURRENCY: '3',
          // Runs of about 4 s: still in flight when their worker dies.
          AGATE_TEST_DELAY_MS: '500',
          AGATE_TEST_RECOVERY_MS: '1500',
        };
        // Fresh executor ids (the default): nobody comes back under the dead one's id.
        const pair = [worker(dir, env), worker(dir, env)];
        await Promise.all(pair.map((w) => w.ready));
        const handles = await startRuns('d', 4);
        let first: string | undefined;
        while (first === undefined) {
          first = lines(join(dir, 'spans.log'))[0];
          await sleep(20);
        }
        const doomedPid = Number(first.split(' ')[2]);
        const doomed = pair.find((w) => w.pid === doomedPid) as WorkerProcess;
        const survivor = pair.find((w) => w !== doomed) as WorkerProcess;
        doomed.kill('SIGKILL');
        const killedAt = new Map([[doomed.pid, Date.now()]]);
        await doomed.exited;
        const results = await Promise.all(
          handles.map((h) => h.result({ timeoutMs: scaledLimit(30_000) })),
        );
        expect(results.map((r) => r.status)).toEqual(results.map(() => 'completed'));
        expectEveryCall(dir, 'd', 4, 4);
        const all = spans(join(dir, 'spans.log'), killedAt);
        const orphaned = new Set(all.filter((s) => s.pid === doomed.pid).map((s) => s.run));
        expect(orphaned.size).toBeGreaterThan(0);
        for (const run of orphaned) {
          // Finished by the survivor: its last call ran there.
          expect(all.some((s) => s.run === run && s.pid === survivor.pid)).toBe(true);
        }
        expect(overlaps(all)).toEqual([]);
      },
      scaledLimit(45_000),
    );

    it(
      'PostgreSQL restarted mid-run: runs wait and go on',
      async () => {
        const dir = logDir();
        const env = { AGATE_TEST_CONCURRENCY: '4', AGATE_TEST_DELAY_MS: '60' };
        const w = worker(dir, env);
        await w.ready;
        const handles = await startRuns('p', 4);
        while (lines(join(dir, 'spans.log')).length < 4) await sleep(50);
        await pg.restart({ downForMs: 1_000 });
        const results = await Promise.all(
          handles.map((h) => h.result({ timeoutMs: scaledLimit(30_000) })),
        );
        expect(results.map((r) => r.status)).toEqual([
          'completed',
          'completed',
          'completed',
          'completed',
        ]);
        expectEveryCall(dir, 'p', 4, 4);
      },
      scaledLimit(45_000),
    );
  },
);
