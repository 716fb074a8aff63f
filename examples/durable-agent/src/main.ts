// The whole demo in one command: a private PostgreSQL (or DATABASE_URL), a worker that is killed
// mid-run, a second worker that takes the run over, and the ledger showing every invoice once.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@agate/dbos';
import { startPostgres } from '@agate/testing';

const ledger = join(tmpdir(), `durable-demo-${process.pid}.txt`);
const pg = await startPostgres({ fsync: true }).catch((error: unknown) => {
  // No DATABASE_URL and no PostgreSQL package: one line saying where to get one.
  console.error(
    `durable demo: ${(error as Error).message} See README.md, "Where PostgreSQL comes from".`,
  );
  process.exit(1);
});
const env = { ...process.env, DATABASE_URL: pg.url, DURABLE_DEMO_LEDGER: ledger };
const workerScript = fileURLToPath(new URL('./worker.ts', import.meta.url));

function startWorker(): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--conditions=@agate/source', '--import', 'tsx', workerScript],
    { env: { ...env, NODE_NO_WARNINGS: '1' }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      process.stdout.write(`  ${chunk}`);
      if (chunk.toString().includes('ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`the worker exited (${code})`)));
  });
}

const client = await createClient({ databaseUrl: pg.url });
try {
  console.log(
    `PostgreSQL at ${pg.url}${pg.external ? ' (DATABASE_URL)' : ' (private, temporary)'}`,
  );
  const first = await startWorker();
  const run = await client.startRun({ agent: 'bookkeeper', sessionId: `books-${Date.now()}` });
  console.log(`started run ${run.runId}`);
  // Let it book a few invoices, then kill the worker without warning.
  while ((readLedger().match(/\n/g) ?? []).length < 3) await sleep(100);
  first.kill('SIGKILL');
  console.log(
    `killed worker process ${first.pid} mid-run (SIGKILL); the run is ${await run.status()}`,
  );
  const second = await startWorker();
  const result = await run.result({ timeoutMs: 120_000 });
  console.log(`run ${result.status}: ${result.text}`);
  console.log('ledger (each invoice once, by call id):');
  console.log(readLedger().trimEnd().replace(/^/gm, '  '));
  second.kill('SIGTERM');
} finally {
  await client.close();
  await pg.stop();
  rmSync(ledger, { force: true });
}

function readLedger(): string {
  try {
    return readFileSync(ledger, 'utf8');
  } catch {
    return '';
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
