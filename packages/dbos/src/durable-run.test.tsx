import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileStore } from '@agate/core';
import { requirePostgres, startPostgres, type TestPostgres } from '@agate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLS_PER_RUN, countingAgents } from './__fixtures__/counting-agent.js';
import { type Client, createClient, launchWorker, type Worker } from './index.js';

describe.skipIf(!requirePostgres('durable runs (@agate/dbos)'))('durable runs', () => {
  let pg: TestPostgres;
  let dir: string;
  let worker: Worker;
  let client: Client;

  beforeAll(async () => {
    pg = await startPostgres();
    dir = mkdtempSync(join(tmpdir(), 'agate-dbos-'));
    worker = await launchWorker({
      databaseUrl: pg.url,
      agents: countingAgents(dir, 5),
      store: createFileStore(join(dir, 'sessions')),
      concurrency: 3,
    });
    client = await createClient({ databaseUrl: pg.url });
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await worker?.shutdown();
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs queued runs to the end, each tool call once', async () => {
    const handles = await Promise.all(
      ['a', 'b', 'c'].map((run) =>
        client.startRun({ agent: 'counting', sessionId: `s-${run}`, input: { run } }),
      ),
    );
    const results = await Promise.all(handles.map((h) => h.result({ timeoutMs: 30_000 })));
    expect(results.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
    expect(results[0]?.ticks).toBe(CALLS_PER_RUN + 1);
    const calls = readFileSync(join(dir, 'calls.log'), 'utf8').trim().split('\n').sort();
    expect(calls).toHaveLength(3 * CALLS_PER_RUN);
    expect(new Set(calls).size).toBe(calls.length);
    expect(await handles[0]?.status()).toBe('completed');
  });
});
