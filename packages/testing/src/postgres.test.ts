import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  initdbTemplateDir,
  postgresBinDir,
  requirePostgres,
  SHARED_POSTGRES_ENV,
  startPostgres,
  type TestPostgres,
} from './postgres.js';

const psql = (url: string, sql: string): string =>
  execFileSync(join(postgresBinDir() ?? '', 'psql'), [url, '-tAc', sql], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();

describe.skipIf(!requirePostgres('startPostgres self-test') || postgresBinDir() === undefined)(
  'startPostgres',
  () => {
    let pg: TestPostgres;
    beforeAll(async () => {
      pg = await startPostgres({ private: true });
    }, 30_000);
    afterAll(() => pg?.stop());

    it('gives a private server that answers on loopback, with fsync off by default', () => {
      expect(pg.url).toMatch(/^postgres:\/\/agate@127\.0\.0\.1:\d+\/postgres$/);
      expect(pg.external).toBe(false);
      expect(psql(pg.url, 'select 1')).toBe('1');
      expect(psql(pg.url, 'show fsync')).toBe('off');
    });

    it('keeps its data across a restart on the same port', async () => {
      psql(pg.url, 'create table kept (x int); insert into kept values (7)');
      await pg.restart();
      expect(psql(pg.url, 'select x from kept')).toBe('7');
    }, 30_000);

    it('stop ends the server and is safe to call twice', async () => {
      const other = await startPostgres({ private: true, fsync: true });
      expect(psql(other.url, 'show fsync')).toBe('on');
      // Both start from one initdb'd copy, yet the table the test above made is pg's alone.
      expect(psql(other.url, "select count(*) from pg_tables where tablename = 'kept'")).toBe('0');
      expect(psql(pg.url, "select count(*) from pg_tables where tablename = 'kept'")).toBe('1');
      await other.stop();
      await other.stop();
      expect(() => psql(other.url, 'select 1')).toThrow();
    }, 30_000);

    it('never copies a template another user could have planted in the shared temporary directory', async () => {
      // Its own TMPDIR (files of one worker run one at a time), traversable by the server's user.
      const before = process.env.TMPDIR;
      const tmp = mkdtempSync(join(tmpdir(), 'agate-pg-plant-'));
      chmodSync(tmp, 0o755);
      process.env.TMPDIR = tmp;
      try {
        const planted = join(initdbTemplateDir(postgresBinDir() ?? ''), 'data');
        mkdirSync(planted, { recursive: true });
        writeFileSync(join(planted, 'PG_VERSION'), '15\n');
        // A config that would stop the server from starting (or run a command) if it were used.
        writeFileSync(
          join(planted, 'postgresql.conf'),
          "archive_command = 'touch planted'\nport = nonsense\n",
        );
        chmodSync(join(planted, '..'), 0o777);
        const own = await startPostgres({ private: true });
        try {
          expect(psql(own.url, 'select 1')).toBe('1');
          expect(psql(own.url, 'show archive_command')).not.toContain('planted');
        } finally {
          await own.stop();
        }
        expect(readFileSync(join(planted, 'postgresql.conf'), 'utf8')).toContain('nonsense');
      } finally {
        if (before === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = before;
        rmSync(tmp, { recursive: true, force: true });
      }
    }, 30_000);
  },
);

// The repository's test run starts one server (vitest.setup-postgres.ts); not with DATABASE_URL.
describe.skipIf(
  !requirePostgres("startPostgres on the run's server") || !process.env[SHARED_POSTGRES_ENV],
)("startPostgres on the test run's one server", () => {
  it('gives each caller an empty database of its own there, and refuses to restart it', async () => {
    const a = await startPostgres();
    const b = await startPostgres();
    expect(a.external).toBe(false);
    expect(new URL(a.url).port).toBe(new URL(b.url).port);
    expect(new URL(a.url).pathname).not.toBe(new URL(b.url).pathname);
    psql(a.url, 'create table mine (x int)');
    expect(psql(b.url, "select count(*) from pg_tables where tablename = 'mine'")).toBe('0');
    await expect(a.restart()).rejects.toThrow(/startPostgres\(\{ private: true \}\)/);
    // A private server is still one's own, on another port.
    const own = await startPostgres({ private: true });
    try {
      expect(new URL(own.url).port).not.toBe(new URL(a.url).port);
    } finally {
      await own.stop();
    }
  }, 30_000);
});
