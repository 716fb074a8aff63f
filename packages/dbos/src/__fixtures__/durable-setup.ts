import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresStore, type PostgresStore } from '@agate/postgres';
import { startPostgres, type TestPostgres } from '@agate/testing';
import {
  type Client,
  createClient,
  type DurableAgents,
  launchWorker,
  type Worker,
  type WorkerOptions,
} from '../index.js';

/** What a durable-run test file starts once: a private PostgreSQL, a worker, a client, a store. */
export interface DurableSetup {
  pg: TestPostgres;
  /** A temporary directory the agents log their calls to. */
  dir: string;
  worker: Worker;
  client: Client;
  store: PostgresStore;
  stop(): Promise<void>;
}

/** Starts them, the worker running `agents(dir)` with `options`; `stop` ends them in reverse. */
export async function startDurable(
  agents: (dir: string) => DurableAgents,
  options: Omit<WorkerOptions, 'databaseUrl' | 'agents'> = {},
): Promise<DurableSetup> {
  const pg = await startPostgres();
  const dir = mkdtempSync(join(tmpdir(), 'agate-dbos-'));
  let worker: Worker | undefined;
  let client: Client | undefined;
  let store: PostgresStore | undefined;
  // Ends what started, in reverse, also when a later start failed.
  const stop = async () => {
    await store?.close();
    await client?.close();
    await worker?.shutdown();
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    worker = await launchWorker({ databaseUrl: pg.url, agents: agents(dir), ...options });
    client = await createClient({ databaseUrl: pg.url });
    store = createPostgresStore({ connectionString: pg.url });
  } catch (error) {
    await stop();
    throw error;
  }
  return { pg, dir, worker, client, store, stop };
}
