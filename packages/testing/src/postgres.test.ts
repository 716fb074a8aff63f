import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresBinDir, requirePostgres, startPostgres, type TestPostgres } from './postgres.js';

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
      await other.stop();
      await other.stop();
      expect(() => psql(other.url, 'select 1')).toThrow();
    }, 30_000);
  },
);
