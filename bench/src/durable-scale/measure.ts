import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient, prepareDatabase } from '@agate/dbos';
import { createDatabase } from '@agate/postgres';
import { postgresBinDir, startPostgres, type TestPostgres } from '@agate/testing';
import pg from 'pg';
import { quantile } from '../stats.js';
import { TICKS_PER_RUN } from './agent.js';
import { machineBusyMs, postgresCpuMs, processCpuMs } from './system.js';

/** Throughput must grow at least this much from 1 to 2 workers, and from 1 to 4. */
export const SCALE_TARGETS = { twoWorkers: 1.6, fourWorkers: 2.5, recoveryExtraMs: 5_000 };
/** What one durable tick may cost (issue 51): transactions, PostgreSQL CPU ms, worker CPU ms. */
export const TICK_COST_TARGETS = { transactions: 5, postgresCpuMs: 1.0, workerCpuMs: 1.5 };
/** Runs each worker takes at once (the queue's worker concurrency). */
export const SCALE_CONCURRENCY = 20;
/**
 * The control: one worker taking as many runs at once as four do together. Where it keeps up
 * with four workers, more runs at once (not more processes) is what the throughput needed.
 */
export const CONTROL = { workers: 1, concurrency: 4 * SCALE_CONCURRENCY } as const;
/** How long a silent worker is given before its runs move (the bench's `recoveryAfterMs`). */
export const RECOVERY_AFTER_MS = 5_000;

export interface WorkersResult {
  workers: number;
  /** Runs each worker takes at once. */
  concurrency: number;
  runs: number;
  /** Runs that ended `completed`. */
  completed: number;
  /** From the workers' start to the last run's end, ms. */
  wallMs: number;
  /** Runs per second between the 10th and the 90th percentile of completions (the steady part). */
  runsPerSec: number;
  ticksPerSec: number;
  /** One tick: from its model step's start to the next tick's (or the end step's) start, ms. */
  tickP50: number;
  tickP99: number;
  /** Per tick, over the whole measurement: transactions (reads too), rows written, WAL bytes. */
  commitsPerTick: number;
  rowsPerTick: number;
  walBytesPerTick: number;
  /** CPU per tick, ms: PostgreSQL's, and the workers' (their start included). */
  postgresCpuMsPerTick: number;
  workerCpuMsPerTick: number;
  /** CPU used over the wall time, in cores: PostgreSQL, the workers, the whole machine. */
  postgresCores: number;
  workerCores: number;
  machineCores: number;
}

export interface KillResult {
  workers: number;
  killed: number;
  runs: number;
  completed: number;
  /** Runs the killed workers held when they died. */
  orphaned: number;
  /**
   * From the kill until the last orphaned run had gone on: its first step recorded by a
   * survivor, ms (judged: the run is recovered once it runs again).
   */
  resumedMs: number;
  /** From the kill to the end of the last orphaned run, ms (its remaining ticks included). */
  recoveryMs: number;
  recoveryAfterMs: number;
  /** Tool calls that ran more than once (at most one in flight per orphaned run may). */
  repeatedCalls: number;
}

export interface DurableScaleResult {
  runs: number;
  concurrency: number;
  ticksPerRun: number;
  cores: number;
  configs: WorkersResult[];
  kill?: KillResult;
  /** Why there is nothing (no PostgreSQL). */
  skipped?: string;
}

const WORKER_SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'worker.ts');
const BENCH_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface WorkerProcess {
  child: ChildProcess;
  executorId: string;
  ready: Promise<void>;
  exited: Promise<unknown>;
}

function startWorker(
  url: string,
  executorId: string,
  concurrency: number,
  logDir: string,
): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER_SCRIPT], {
    cwd: BENCH_DIR,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      NODE_NO_WARNINGS: '1',
      DATABASE_URL: url,
      SCALE_EXECUTOR_ID: executorId,
      SCALE_CONCURRENCY: String(concurrency),
      SCALE_RECOVERY_MS: String(RECOVERY_AFTER_MS),
      SCALE_LOG_DIR: logDir,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
    void exited.then(() =>
      reject(new Error(`scale worker ${executorId} exited before it was ready`)),
    );
  });
  return { child, executorId, ready, exited };
}

/** Counters of the database's writes: commits, rows written, and the WAL position. */
async function counters(db: pg.Client, database: string) {
  const { rows } = await db.query<{ commits: string; rows: string; lsn: string }>(
    `SELECT xact_commit AS commits, tup_inserted + tup_updated + tup_deleted AS rows,
            pg_current_wal_lsn()::text AS lsn
     FROM pg_stat_database WHERE datname = $1`,
    [database],
  );
  const r = rows[0];
  if (r === undefined) throw new Error(`no statistics for database ${database}`);
  return { commits: Number(r.commits), rows: Number(r.rows), lsn: r.lsn };
}

async function walBytes(db: pg.Client, from: string, to: string): Promise<number> {
  const { rows } = await db.query<{ bytes: string }>('SELECT pg_wal_lsn_diff($1, $2) AS bytes', [
    to,
    from,
  ]);
  return Number(rows[0]?.bytes ?? 0);
}

/** Completed runs' end times (epoch ms), and how many runs ended at all. */
async function progress(db: pg.Client): Promise<{ ended: number; completedAt: number[] }> {
  const { rows } = await db.query<{ status: string; updated_at: string; completed: boolean }>(
    `SELECT ws.status, ws.updated_at, coalesce(wo.output LIKE '%"status":"completed"%', false) AS completed
     FROM dbos.workflow_status ws LEFT JOIN dbos.workflow_output wo USING (workflow_uuid)
     WHERE ws.name = 'agate-run'`,
  );
  const ended = rows.filter((r) => r.status === 'SUCCESS' || r.status === 'ERROR');
  return {
    ended: ended.length,
    completedAt: ended.filter((r) => r.completed).map((r) => Number(r.updated_at)),
  };
}

/** Each tick's duration from the steps the runs recorded: a model step's start to the next one's. */
async function tickDurations(db: pg.Client): Promise<number[]> {
  const { rows } = await db.query<{ workflow_uuid: string; started: string | null }>(
    `SELECT workflow_id AS workflow_uuid, started_ms AS started FROM agate_dbos.steps
     WHERE name IN ('agate:model', 'agate:end') ORDER BY workflow_id, idx`,
  );
  const ticks: number[] = [];
  for (let i = 1; i < rows.length; i++) {
    const [a, b] = [rows[i - 1], rows[i]];
    if (a?.workflow_uuid !== b?.workflow_uuid || a?.started == null || b?.started == null) continue;
    ticks.push(Number(b.started) - Number(a.started));
  }
  return ticks;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One configuration: a fresh database, `runs` runs enqueued while no worker runs, then `workers`
 * worker processes started together; measured until every run has ended. With `kill`, half the
 * workers are SIGKILLed once half the runs have ended, and the recovery of their runs is timed.
 */
async function measureWorkers(
  server: TestPostgres,
  name: string,
  options: {
    workers: number;
    runs: number;
    concurrency: number;
    kill?: boolean;
    log: (line: string) => void;
  },
): Promise<{ result: WorkersResult; kill?: KillResult }> {
  const base = server.url.replace(/\/[^/]*$/, '');
  const url = `${base}/${name}`;
  await createDatabase(url);
  await prepareDatabase(url);
  const logDir = mkdtempSync(join(tmpdir(), `agate-scale-${name}-`));
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const client = await createClient({ databaseUrl: url });
  const workers: WorkerProcess[] = [];
  try {
    options.log(`  ${name}: enqueueing ${options.runs} runs...`);
    for (let i = 0; i < options.runs; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, options.runs - i) }, (_, j) => {
          const run = `r${i + j}`;
          return client.startRun({ agent: 'recorder', sessionId: run, input: { run } });
        }),
      );
    }
    const before = await counters(db, name);
    const port = Number(new URL(url).port);
    // Only a server on this machine can be measured from /proc (not one at DATABASE_URL).
    const pgBefore = server.external ? undefined : postgresCpuMs(port);
    const machineBefore = machineBusyMs();
    const started = Date.now();
    for (let w = 0; w < options.workers; w++) {
      workers.push(startWorker(url, `${name}-w${w}`, options.concurrency, logDir));
    }
    await Promise.all(workers.map((w) => w.ready));
    options.log(`  ${name}: ${options.workers} worker(s) running...`);
    let kill: { at: number; orphaned: string[]; killed: WorkerProcess[] } | undefined;
    let state = await progress(db);
    while (state.ended < options.runs) {
      if (Date.now() - started > 15 * 60_000)
        throw new Error(`${name}: runs still going after 15 minutes`);
      if (options.kill && kill === undefined && state.ended >= options.runs / 2) {
        const killed = workers.slice(0, Math.floor(options.workers / 2));
        for (const w of killed) w.child.kill('SIGKILL');
        const at = Date.now();
        await Promise.all(killed.map((w) => w.exited));
        const { rows } = await db.query<{ workflow_uuid: string }>(
          `SELECT workflow_uuid FROM dbos.workflow_status
           WHERE status = 'PENDING' AND executor_id = ANY($1)`,
          [killed.map((w) => w.executorId)],
        );
        kill = { at, orphaned: rows.map((r) => r.workflow_uuid), killed };
        options.log(`  ${name}: killed ${killed.length} workers holding ${rows.length} runs`);
      }
      await sleep(200);
      state = await progress(db);
    }
    const ended = Date.now();
    const pgAfter = pgBefore === undefined ? undefined : postgresCpuMs(port);
    const pgCpu = pgBefore === undefined || pgAfter === undefined ? Number.NaN : pgAfter - pgBefore;
    const machineAfter = machineBusyMs();
    const workerCpu = workers
      .filter((w) => !kill?.killed.includes(w))
      .reduce((sum, w) => sum + (processCpuMs(w.child.pid as number) ?? 0), 0);
    // Stopped before the counters are read: a backend reports its statistics as it exits.
    for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
    await sleep(500);
    const after = await counters(db, name);
    const ticks = options.runs * TICKS_PER_RUN;
    const wallMs = ended - started;
    const done = [...state.completedAt].sort((a, b) => a - b);
    const at = (q: number) => done[Math.min(done.length - 1, Math.floor(q * done.length))] ?? 0;
    const steadyRuns = Math.floor(0.9 * done.length) - Math.floor(0.1 * done.length);
    const runsPerSec = (steadyRuns * 1000) / Math.max(1, at(0.9) - at(0.1));
    const durations = await tickDurations(db);
    const result: WorkersResult = {
      workers: options.workers,
      concurrency: options.concurrency,
      runs: options.runs,
      completed: done.length,
      wallMs,
      runsPerSec,
      ticksPerSec: runsPerSec * TICKS_PER_RUN,
      tickP50: durations.length > 0 ? quantile(durations, 0.5) : Number.NaN,
      tickP99: durations.length > 0 ? quantile(durations, 0.99) : Number.NaN,
      commitsPerTick: (after.commits - before.commits) / ticks,
      rowsPerTick: (after.rows - before.rows) / ticks,
      walBytesPerTick: (await walBytes(db, before.lsn, after.lsn)) / ticks,
      postgresCpuMsPerTick: pgCpu / ticks,
      workerCpuMsPerTick: workerCpu / ticks,
      postgresCores: pgCpu / wallMs,
      workerCores: workerCpu / wallMs,
      machineCores: (machineAfter - machineBefore) / wallMs,
    };
    if (kill === undefined) return { result };
    const { rows } = await db.query<{ id: string; status: string; updated_at: string }>(
      'SELECT workflow_uuid AS id, status, updated_at FROM dbos.workflow_status WHERE workflow_uuid = ANY($1)',
      [kill.orphaned],
    );
    const resumed = await db.query<{ id: string; first: string }>(
      `SELECT workflow_id AS id, min(ended_ms) AS first FROM agate_dbos.steps
       WHERE workflow_id = ANY($1) AND ended_ms > $2 GROUP BY workflow_id`,
      [kill.orphaned, kill.at],
    );
    // A run whose steps were all recorded before the kill records no step at the survivor:
    // it went on when its workflow ended there (it read as never: "Infinity ms"). A run with
    // neither a later step nor an end did not go on.
    const firstStep = new Map(resumed.rows.map((r) => [r.id, Number(r.first)]));
    const wentOn = rows.map(
      (r) =>
        firstStep.get(r.id) ??
        (r.status === 'PENDING' || r.status === 'ENQUEUED'
          ? Number.POSITIVE_INFINITY
          : Number(r.updated_at)),
    );
    const calls = readdirSync(logDir)
      .filter((f) => f.startsWith('tools-'))
      .flatMap((f) => readFileSync(join(logDir, f), 'utf8').split('\n').filter(Boolean));
    return {
      result,
      kill: {
        workers: options.workers,
        killed: kill.killed.length,
        runs: options.runs,
        completed: done.length,
        orphaned: kill.orphaned.length,
        // A run not found at all (never taken over) still reads as never.
        resumedMs:
          rows.length < kill.orphaned.length
            ? Number.POSITIVE_INFINITY
            : Math.max(0, ...wentOn.map((at) => at - kill.at)),
        recoveryMs: Math.max(0, ...rows.map((r) => Number(r.updated_at) - kill.at)),
        recoveryAfterMs: RECOVERY_AFTER_MS,
        repeatedCalls: calls.length - new Set(calls).size,
      },
    };
  } finally {
    for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    await client.close();
    await db.end();
    rmSync(logDir, { recursive: true, force: true });
  }
}

/**
 * Issue 38 §4: W worker processes (1, 2, 4) on one PostgreSQL (private, fsync on) serving `runs`
 * runs of 11 ticks each (a 5 ms model; ten ticks call a tool, the eleventh answers); then 4
 * workers, half of them SIGKILLed in the middle. Undefined (with the reason) without PostgreSQL.
 */
export async function measureDurableScale(options: {
  runs: number;
  workerCounts: readonly number[];
  concurrency: number;
  kill: boolean;
  /** Also measure the control (one worker, four workers' concurrency). */
  control: boolean;
  cores: number;
  log: (line: string) => void;
}): Promise<DurableScaleResult> {
  const base = {
    runs: options.runs,
    concurrency: options.concurrency,
    ticksPerRun: TICKS_PER_RUN,
    cores: options.cores,
    configs: [] as WorkersResult[],
  };
  if (process.env.DATABASE_URL === undefined && postgresBinDir() === undefined) {
    return { ...base, skipped: 'PostgreSQL is not installed here (apt-get install postgresql)' };
  }
  // DATABASE_URL: a server like the one to size (its role must be allowed to create databases).
  const server = await startPostgres({ fsync: true });
  try {
    const configs = [
      ...options.workerCounts.map((workers) => ({ workers, concurrency: options.concurrency })),
      ...(options.control ? [CONTROL] : []),
    ];
    for (const { workers, concurrency } of configs) {
      const { result } = await measureWorkers(server, `scale_w${workers}_c${concurrency}`, {
        ...options,
        workers,
        concurrency,
        kill: false,
      });
      options.log(
        `  ${workers} worker(s) × ${concurrency}: ${result.runsPerSec.toFixed(1)} runs/s, ${result.ticksPerSec.toFixed(0)} ticks/s`,
      );
      base.configs.push(result);
    }
    if (!options.kill) return base;
    const { kill } = await measureWorkers(server, 'scale_kill', {
      ...options,
      workers: 4,
      kill: true,
    });
    return { ...base, ...(kill !== undefined ? { kill } : {}) };
  } finally {
    await server.stop();
  }
}
