/**
 * Where a durable tick's CPU goes (issue 51): `pnpm --filter @agate/bench bench:tick-profile
 * [--runs N] [--cpu-prof DIR]`. One worker (the scale bench's agent, 20 runs at once) serves N
 * runs on a private PostgreSQL with fsync on and pg_stat_statements loaded; prints PostgreSQL's
 * and the worker's CPU per tick and the statements by total time (execution + planning), per
 * tick. With `--cpu-prof DIR` the worker writes a V8 CPU profile there.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient, prepareDatabase } from '@agate/dbos';
import { createDatabase } from '@agate/postgres';
import { startPostgres } from '@agate/testing';
import pg from 'pg';
import { TICKS_PER_RUN } from './agent.js';
import { postgresCpuMs, processCpuMs } from './system.js';

const argv = process.argv.slice(2);
const option = (name: string) => {
  const at = argv.indexOf(name);
  return at >= 0 ? argv[at + 1] : undefined;
};
const runs = Number(option('--runs') ?? 200);
const cpuProf = option('--cpu-prof');
/** Without pg_stat_statements (its own cost left out: the CPU figures only). */
const plain = argv.includes('--plain');
const log = (line: string) => process.stderr.write(`${line}\n`);

const server = await startPostgres({ private: true, fsync: true });
if (!plain) {
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`);
  await admin.end();
  await server.restart();
  const settings = new pg.Client({ connectionString: server.url });
  await settings.connect();
  await settings.query(`ALTER SYSTEM SET pg_stat_statements.track_planning = on`);
  await settings.query(`ALTER SYSTEM SET pg_stat_statements.track = 'all'`);
  await settings.query('SELECT pg_reload_conf()');
  await settings.end();
}
const url = server.url.replace(/\/[^/]*$/, '/profile');
await createDatabase(url);
await prepareDatabase(url);
const db = new pg.Client({ connectionString: url });
await db.connect();
if (!plain) await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
const client = await createClient({ databaseUrl: url });
const logDir = mkdtempSync(join(tmpdir(), 'agate-tick-profile-'));
try {
  for (let i = 0; i < runs; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, runs - i) }, (_, j) =>
        client.startRun({ agent: 'recorder', sessionId: `r${i + j}`, input: { run: `r${i + j}` } }),
      ),
    );
  }
  if (!plain) await db.query('SELECT pg_stat_statements_reset()');
  const port = Number(new URL(url).port);
  const pgBefore = postgresCpuMs(port) ?? Number.NaN;
  const script = join(dirname(fileURLToPath(import.meta.url)), 'worker.ts');
  const child = spawn(
    process.execPath,
    [...(cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : []), '--import', 'tsx', script],
    {
      cwd: join(dirname(fileURLToPath(import.meta.url)), '..', '..'),
      env: {
        ...process.env,
        NODE_ENV: 'production',
        NODE_NO_WARNINGS: '1',
        DATABASE_URL: url,
        SCALE_EXECUTOR_ID: 'profile-w0',
        SCALE_CONCURRENCY: '20',
        SCALE_RECOVERY_MS: '5000',
        SCALE_LOG_DIR: logDir,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve) =>
    child.stdout?.on('data', (b: Buffer) => b.toString().includes('ready') && resolve()),
  );
  const started = Date.now();
  const cpuAtReady = processCpuMs(child.pid as number) ?? 0;
  for (;;) {
    const { rows } = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM dbos.workflow_status WHERE name = 'agate-run' AND status IN ('SUCCESS', 'ERROR')`,
    );
    if (Number(rows[0]?.n) >= runs) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const wall = Date.now() - started;
  const workerCpu = (processCpuMs(child.pid as number) ?? 0) - cpuAtReady;
  const pgCpu = (postgresCpuMs(port) ?? Number.NaN) - pgBefore;
  child.kill('SIGTERM');
  await exited;
  const ticks = runs * TICKS_PER_RUN;
  log(`${runs} runs, ${ticks} ticks in ${wall} ms`);
  log(
    `PostgreSQL CPU ${(pgCpu / ticks).toFixed(3)} ms/tick; worker CPU (after ready) ${(workerCpu / ticks).toFixed(3)} ms/tick`,
  );
  if (!plain) {
    const { rows } = await db.query<{
      query: string;
      calls: string;
      exec: number;
      plan: number;
      rows: string;
      hit: string;
      dirtied: string;
      written: string;
    }>(
      `SELECT query, calls, total_exec_time AS exec, total_plan_time AS plan, rows,
              shared_blks_hit AS hit, shared_blks_dirtied AS dirtied, wal_bytes AS written
       FROM pg_stat_statements ORDER BY total_exec_time + total_plan_time DESC LIMIT 40`,
    );
    const total = rows.reduce((s, r) => s + r.exec + r.plan, 0);
    log(`statements: ${(total / ticks).toFixed(3)} ms/tick of execution + planning (top 40)`);
    for (const r of rows) {
      log(
        `${((r.exec + r.plan) / ticks).toFixed(4)} ms/tick  exec ${(r.exec / ticks).toFixed(4)} plan ${(r.plan / ticks).toFixed(4)}  calls/tick ${(Number(r.calls) / ticks).toFixed(2)}  rows ${r.rows} hit ${r.hit} dirtied ${r.dirtied} wal ${r.written}  ${r.query.replace(/\s+/g, ' ').slice(0, 160)}`,
      );
    }
  }
} finally {
  await client.close();
  await db.end();
  rmSync(logDir, { recursive: true, force: true });
  await server.stop();
}
