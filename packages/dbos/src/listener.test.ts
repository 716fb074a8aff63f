import { createSnapshot } from '@agate/core/stores';
import { createPostgresStore, DECISION_CHANNEL, type PostgresStore } from '@agate/postgres';
import { requirePostgres, startPostgres, type TestPostgres } from '@agate/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CancelWatch } from './cancellations.js';
import { type Listener, listen } from './listener.js';
import { CANCEL_CHANNEL, ensureTables, requestCancel } from './tables.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe.skipIf(!requirePostgres('the worker’s listener (@agate/dbos)'))('listen', () => {
  let server: TestPostgres;
  let store: PostgresStore;
  let pool: pg.Pool;
  let listener: Listener | undefined;
  let cancels: CancelWatch;
  const heard: string[] = [];
  let connections = 0;

  beforeAll(async () => {
    // A server of its own: a test restarts it.
    server = await startPostgres({ private: true });
    store = createPostgresStore({ connectionString: server.url });
    pool = new pg.Pool({ connectionString: server.url });
    pool.on('error', () => {});
    await ensureTables(pool);
    cancels = new CancelWatch(pool);
    // A run cancelled before the worker started: known from the table at the first connection.
    await requestCancel(pool, 'cancelled-before');
    listener = listen({
      databaseUrl: server.url,
      channels: {
        [DECISION_CHANNEL]: (id) => heard.push(id),
        [CANCEL_CHANNEL]: (id) => cancels.heard(id),
      },
      onError: () => {},
      onConnected: () => {
        connections++;
        void cancels.connected().catch(() => cancels.disconnected());
      },
      onDisconnected: () => cancels.disconnected(),
    });
    await until(() => connections === 1, 'the first connection');
  }, 60_000);

  afterAll(async () => {
    await listener?.stop();
    await pool?.end();
    await store?.close();
    await server?.stop();
  });

  it('hears a save marked as a decision, and only such saves, once committed', async () => {
    await store.save(createSnapshot('plain', { n: 1 }));
    await store.save(createSnapshot('decided', { n: 1 }), { decision: true });
    await until(() => heard.includes('decided'), 'the decision');
    expect(heard).toEqual(['decided']);
    // A decision over a stale revision writes nothing, so it notifies nobody.
    await expect(
      store.save(createSnapshot('decided', { n: 2 }), { decision: true, expectedRevision: 7 }),
    ).rejects.toThrow(/revision/);
    await sleep(300);
    expect(heard).toEqual(['decided']);
  });

  it('knows cancellations from the table and from cancelRun’s notifications', async () => {
    await until(() => cancels.known('cancelled-before') === true, 'the first read of the table');
    expect(cancels.known('running')).toBe(false);
    await requestCancel(pool, 'running');
    await until(() => cancels.known('running') === true, 'the cancellation');
    // Down: nothing is known for sure, so a step asks the table.
    cancels.disconnected();
    expect(cancels.known('other')).toBeUndefined();
    await cancels.connected();
    expect(cancels.known('other')).toBe(false);
    // A run that ended drops its request from the watch (its last step drops it from the table).
    expect(cancels.known('running')).toBe(true);
    cancels.forget('running');
    expect(cancels.known('running')).toBe(false);
  });

  it('reconnects after the database restarts and hears decisions again', async () => {
    await server.restart({ downForMs: 300 });
    await until(() => connections === 2, 'the listener to reconnect');
    // Reconnected: the table is read again before the watch is trusted.
    await until(() => cancels.known('other') === false, 'the table read after the restart');
    await store.save(createSnapshot('after-restart', {}), { decision: true }).catch(async () => {
      // The store's pool may hand out a connection the restart cut: once more on a fresh one.
      await store.save(createSnapshot('after-restart', {}), { decision: true });
    });
    await until(() => heard.includes('after-restart'), 'the decision after the restart');
  }, 30_000);
});
