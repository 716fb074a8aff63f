import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requirePostgres, startPostgres, type TestPostgres } from '@agate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLS_PER_RUN, countingAgents } from './__fixtures__/counting-agent.js';
import { dbosDatabaseUrl } from './database-url.js';
import { type Client, createClient, launchWorker, type Worker } from './index.js';

describe('dbosDatabaseUrl', () => {
  it('gives a socket URL with a role and no host a host DBOS can parse; leaves the rest as written', () => {
    expect(dbosDatabaseUrl('postgres://ana@/runs?host=/run/postgresql')).toBe(
      'postgres://ana@localhost/runs?host=/run/postgresql',
    );
    expect(dbosDatabaseUrl('POSTGRESQL://ana:pw@/runs?host=/tmp&port=5433')).toBe(
      'POSTGRESQL://ana:pw@localhost/runs?host=/tmp&port=5433',
    );
    for (const url of [
      'postgres://ana@db.internal:5432/runs',
      'postgresql:///runs?host=/run/postgresql',
      'postgres://ana@127.0.0.1/runs?x=@/',
    ]) {
      expect(dbosDatabaseUrl(url)).toBe(url);
    }
  });
});

// A file of its own: one worker per process. What `agate db create` prints for a socket
// (`--store 'postgres://user@/db?host=DIR'`) must start a worker, not fail with "Invalid URL".
describe.skipIf(!requirePostgres('durable runs on a Unix socket (@agate/dbos)'))(
  'a worker and a client on a Unix-socket URL with a role and no host',
  () => {
    let pg: TestPostgres;
    let dir: string;
    let worker: Worker | undefined;
    let client: Client | undefined;
    let url: string;

    beforeAll(async () => {
      pg = await startPostgres({ private: true });
      dir = mkdtempSync(join(tmpdir(), 'agate-dbos-socket-'));
      url = `postgres://agate@/postgres?host=${pg.socketDir}&port=${new URL(pg.url).port}`;
    }, 60_000);

    afterAll(async () => {
      await client?.close();
      await worker?.shutdown();
      await pg?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('launches, takes a run and completes it', async () => {
      expect(pg.socketDir).toBeDefined();
      worker = await launchWorker({ databaseUrl: url, agents: countingAgents(dir, 0) });
      client = await createClient({ databaseUrl: url });
      const handle = await client.startRun({
        agent: 'counting',
        sessionId: 'socket-1',
        input: { run: 'socket-1' },
      });
      const result = await handle.result({ timeoutMs: 30_000 });
      expect(result).toMatchObject({ status: 'completed' });
      expect(readFileSync(join(dir, 'calls.log'), 'utf8').trim().split('\n')).toHaveLength(
        CALLS_PER_RUN,
      );
    }, 60_000);
  },
);
