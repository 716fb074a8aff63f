/**
 * Issue 38 §2: `agate worker` as a person meets it, through the real bin in child processes —
 * one `agate worker: …` line and an exit code for each way it cannot start, two lines for a
 * database that goes away and comes back, and a clean stop on SIGTERM and SIGINT. What only
 * prints and exits before any agents file is loaded or worker started (`--help`, a missing
 * file or URL, `agate db create` after its first run here) runs in-process through `main()`
 * (agate-in-process.ts); loading the agents file and the worker's lifetime stay in the bin.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@agate/dbos';
import { postgresBinDir, requirePostgres, startPostgres, type TestPostgres } from '@agate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agateInProcess } from './__fixtures__/agate-in-process.js';
import { builtCliBin } from './__fixtures__/built-cli.js';
import { SLOW_CALLS } from './__fixtures__/worker-agents.js';

// The built CLI (__fixtures__/built-cli.ts): no tsx transform at each start.
const BIN = builtCliBin();
const AGENTS = fileURLToPath(new URL('./__fixtures__/worker-agents.tsx', import.meta.url));
const NOT_AGENTS = fileURLToPath(new URL('./__fixtures__/not-an-agent.ts', import.meta.url));

interface Bin {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  /** Resolves with the exit code (or the signal's 128 + n). */
  exited: Promise<number | null>;
  /** Resolves once stdout has a line matching `pattern`. */
  printed(pattern: RegExp): Promise<void>;
}

function agate(args: string[], env: Record<string, string> = {}): Bin {
  const base: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete base.DATABASE_URL;
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...base, ...env } });
  const bin: Bin = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => child.on('close', (code) => resolve(code))),
    printed: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(bin.stdout)) resolve();
        };
        child.stdout?.on('data', check);
        void bin.exited.then(() =>
          reject(new Error(`exited before printing ${pattern}:\n${bin.stdout}\n${bin.stderr}`)),
        );
        check();
      }),
  };
  child.stdout?.on('data', (c: Buffer) => {
    bin.stdout += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    bin.stderr += c.toString();
  });
  return bin;
}

/** A command that only prints and exits, in-process; the same fields as a finished `Bin`. */
async function cli(args: string[], env: Record<string, string> = {}) {
  const { code, stdout, stderr } = await agateInProcess(args, { env });
  return { exited: Promise.resolve(code), stdout, stderr };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Exactly one line, `agate worker: …`, and no stack trace. */
function oneLine(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l !== '');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^agate worker: /);
  return lines[0] as string;
}

describe('agate worker, the real bin', () => {
  let dir: string;
  let nowhere: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agate-worker-bin-'));
    nowhere = `postgres://agate@127.0.0.1:${await closedPort()}/agents`;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('--help lists the environment it reads and its exit codes', async () => {
    const help = await cli(['worker', '--help']);
    expect(await help.exited).toBe(0);
    for (const name of ['DATABASE_URL', 'AGATE_APPROVAL_KEY', 'AGATE_APPROVAL_PUBLIC_KEY']) {
      expect(help.stdout).toContain(name);
    }
    expect(help.stdout).toContain('Exit codes:');
  }, 30_000);

  it('an agents file it cannot use, or no database URL: one line, exit 2', async () => {
    const broken = join(dir, 'broken.tsx');
    writeFileSync(broken, 'export const agents = {\n');
    // Loading the agents file is the bin's (tsx's hooks, fresh in each process); a file not
    // there and a URL not given end before it, in-process.
    const cases = [
      [['worker', join(dir, 'missing.tsx'), '--store', nowhere], /agents file .* not found/i, cli],
      [['worker', broken, '--store', nowhere], /could not load the agents file/i, agate],
      [['worker', NOT_AGENTS, '--store', nowhere], /must export its agents by name/, agate],
      [['worker', AGENTS], /needs the runs database: --store postgres:.*or DATABASE_URL/, cli],
    ] as const;
    const runs = await Promise.all(cases.map(([args, , how]) => how([...args])));
    for (const [i, run] of runs.entries()) {
      expect(await run.exited).toBe(2);
      expect(oneLine(run.stderr)).toMatch(cases[i]?.[1] as RegExp);
    }
  }, 60_000);

  it('nothing at the URL: one line naming the address and what to check, exit 2', async () => {
    const run = agate(['worker', AGENTS], { DATABASE_URL: nowhere });
    expect(await run.exited).toBe(2);
    const line = oneLine(run.stderr);
    expect(line).toContain(`nothing answers at 127.0.0.1:${new URL(nowhere).port}`);
    expect(line).toContain('Check the URL');
  }, 30_000);

  describe.skipIf(
    !requirePostgres('agate worker bin (@agate/dbos)') || postgresBinDir() === undefined,
  )('on PostgreSQL', () => {
    let server: TestPostgres;
    let base: string;
    beforeAll(async () => {
      server = await startPostgres({ private: true });
      base = server.url.replace(/\/postgres$/, '');
    }, 30_000);
    afterAll(() => server?.stop());

    /** SQL through psql (the CLI does not depend on a driver of its own). */
    const sql = async (url: string, text: string) => {
      execFileSync(join(postgresBinDir() ?? '', 'psql'), [url, '-qc', text], { stdio: 'pipe' });
    };

    it('agate db create <url>: the database and its tables, with no psql; run again it changes nothing; a worker then starts there', async () => {
      const url = `${base}/made`;
      const first = agate(['db', 'create', url]);
      expect(await first.exited, first.stderr).toBe(0);
      expect(first.stdout).toContain(`Created database "made" on 127.0.0.1:`);
      expect(first.stdout).toMatch(/Session store \(schema "agate"\): applied migrations 1, /);
      expect(first.stdout).toContain("Durable runs: DBOS's tables and Agate's");
      expect(first.stdout).toContain(`Next: agate worker <agents-file> --store ${url}`);
      const again = await cli(['db', 'create'], { DATABASE_URL: url });
      expect(await again.exited, again.stderr).toBe(0);
      expect(again.stdout).toContain('Database "made" exists');
      expect(again.stdout).toContain('up to date');
      const worker = agate(['worker', AGENTS, '--store', url]);
      await worker.printed(/running slow, greeter/);
      worker.child.kill('SIGTERM');
      expect(await worker.exited, worker.stderr).toBe(0);
      expect(worker.stderr).toBe('');
    }, 60_000);

    it('agate db create: says what it did, nothing false, and quotes the command it suggests', async () => {
      const url = `${base}/quoted?application_name=x$(id)`;
      const made = await cli(['db', 'create', url]);
      expect(await made.exited, made.stderr).toBe(0);
      expect(made.stderr).toBe('');
      expect(made.stdout).not.toContain('does not exist');
      expect(made.stdout).toContain('Created database "quoted"');
      expect(made.stdout).toContain(`Next: agate worker <agents-file> --store '${url}'\n`);
    }, 60_000);

    it('agate db create on a Unix socket: a role with no host (?host=DIR) and a URL with no role or host', async () => {
      const dir = server.socketDir;
      expect(dir).toBeDefined();
      const port = new URL(server.url).port;
      const hostless = `postgres://agate@/bysocket?host=${dir}&port=${port}`;
      const made = await cli(['db', 'create', hostless]);
      expect(await made.exited, made.stderr).toBe(0);
      expect(made.stderr).toBe('');
      expect(made.stdout).toContain(
        `Created database "bysocket" on the Unix socket in ${dir} (port ${port}).`,
      );
      expect(made.stdout).toContain("Durable runs: DBOS's tables and Agate's");
      expect(made.stdout).toContain(`--store '${hostless}'\n`);
      const bare = await cli([
        'db',
        'create',
        `postgresql:///bysocket2?host=${dir}&port=${port}&user=agate`,
      ]);
      expect(await bare.exited, bare.stderr).toBe(0);
      expect(bare.stdout).toContain(`Created database "bysocket2" on the Unix socket in ${dir}`);
      // What it made is there, read through the socket by psql.
      const tables = execFileSync(
        join(postgresBinDir() ?? '', 'psql'),
        [
          `${server.url.replace(/\/postgres$/, '')}/bysocket`,
          '-qAtc',
          "select count(*) from pg_tables where schemaname in ('agate', 'agate_dbos')",
        ],
        { encoding: 'utf8' },
      );
      expect(Number(tables.trim())).toBeGreaterThan(0);
    }, 60_000);

    it('agate db create: a role that may not create databases, and nothing at the URL: one line, exit 2', async () => {
      await sql(server.url, 'CREATE ROLE plain LOGIN');
      const refused = await cli(['db', 'create', `${base.replace('agate@', 'plain@')}/nope`]);
      const unreachable = await cli(['db', 'create', nowhere]);
      expect(await refused.exited).toBe(2);
      expect(refused.stderr).toMatch(
        /^agate: role "plain" may not create databases\. Ask the server's administrator to run CREATE DATABASE "nope" OWNER "plain".*\n$/,
      );
      expect(await unreachable.exited).toBe(2);
      expect(unreachable.stderr).toMatch(/^agate: nothing answers at 127\.0\.0\.1:\d+ .*\n$/);
    }, 30_000);

    it('a database that does not exist: one line with agate db create and createdb, exit 2', async () => {
      const run = agate(['worker', AGENTS, '--store', `${base}/agents`]);
      expect(await run.exited).toBe(2);
      const line = oneLine(run.stderr);
      expect(line).toContain('database "agents" does not exist');
      expect(line).toContain(`agate db create ${base}/agents`);
      expect(line).toContain('createdb agents');
    }, 30_000);

    it('a role that may not create the worker’s tables: one line, exit 1', async () => {
      await sql(server.url, 'CREATE ROLE limited LOGIN');
      await sql(server.url, 'CREATE DATABASE fenced');
      const url = `${base.replace('agate@', 'limited@')}/fenced`;
      const run = agate(['worker', AGENTS, '--store', url]);
      expect(await run.exited).toBe(1);
      const line = oneLine(run.stderr);
      expect(line).toContain(
        `could not create the worker's tables in database "fenced" as role "limited"`,
      );
      expect(line).toContain('permission denied');
      expect(line).toContain('GRANT CREATE ON DATABASE "fenced" TO "limited"');
    }, 30_000);

    it('the database goes away and comes back: one line each, and the worker goes on', async () => {
      await sql(server.url, 'CREATE DATABASE flaky');
      const url = `${base}/flaky`;
      const worker = agate(['worker', AGENTS, '--store', url, '--executor-id', 'flaky']);
      try {
        await worker.printed(/running slow, greeter/);
        await server.restart({ downForMs: 2_000 });
        while (!worker.stderr.includes('the database is back')) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const client = await createClient({ databaseUrl: url });
        try {
          const run = await client.startRun({ agent: 'greeter', sessionId: 'after-outage' });
          expect((await run.result({ timeoutMs: 30_000 })).text).toBe('Hello!');
        } finally {
          await client.close();
        }
      } finally {
        worker.child.kill('SIGTERM');
      }
      expect(await worker.exited).toBe(0);
      const lines = worker.stderr.split('\n').filter((l) => l !== '');
      expect(lines, worker.stderr).toHaveLength(2);
      expect(lines[0]).toMatch(/^agate worker: lost the database \(.+\); runs wait/);
      expect(lines[1]).toMatch(/^agate worker: the database is back after \d+\.\d s; runs go on$/);
    }, 60_000);

    it('SIGTERM and SIGINT: the step in flight finishes, the run goes on elsewhere, exit 0, no stack trace', async () => {
      await sql(server.url, 'CREATE DATABASE stopping');
      const url = `${base}/stopping`;
      const log = join(dir, 'steps.log');
      const env = { DATABASE_URL: url, AGATE_TEST_LOG: log };
      const first = agate(['worker', AGENTS, '--executor-id', 'first'], env);
      await first.printed(/running/);
      const client = await createClient({ databaseUrl: url });
      try {
        const run = await client.startRun({
          agent: 'slow',
          sessionId: 'slow-1',
          input: { run: 's' },
        });
        const read = () => {
          try {
            return readFileSync(log, 'utf8');
          } catch {
            return '';
          }
        };
        while (!read().includes('start step-1')) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        first.child.kill('SIGTERM');
        expect(await first.exited).toBe(0);
        // The call it was making when told to stop finished there, and nothing after it.
        expect(read()).toContain(`end step-1 ${first.child.pid}`);
        expect(read()).not.toContain('step-2');
        expect(first.stdout).toContain('stopping (SIGTERM)');
        expect(first.stdout).toContain('every step in flight finished');
        const second = agate(['worker', AGENTS, '--executor-id', 'second'], env);
        const result = await run.result({ timeoutMs: 30_000 });
        expect(result).toMatchObject({ status: 'completed', text: 'All steps taken.' });
        second.child.kill('SIGINT');
        expect(await second.exited).toBe(0);
        expect(second.stdout).toContain('stopping (SIGINT)');
        const ends = read()
          .split('\n')
          .filter((l) => l.startsWith('end '))
          .map((l) => l.split(' ')[1]);
        expect(ends).toEqual(Array.from({ length: SLOW_CALLS }, (_, i) => `step-${i + 1}`));
        for (const w of [first, second]) {
          expect(w.stderr).not.toMatch(/^\s+at /m);
          expect(w.stderr).toBe('');
        }
      } finally {
        await client.close();
      }
    }, 90_000);
  });
});
