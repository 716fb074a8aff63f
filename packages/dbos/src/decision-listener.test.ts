import { createSnapshot } from '@agate/core';
import { createPostgresStore, type PostgresStore } from '@agate/postgres';
import { requirePostgres, startPostgres, type TestPostgres } from '@agate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DecisionListener, listenForDecisions } from './decision-listener.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe.skipIf(!requirePostgres('the decision listener (@agate/dbos)'))(
  'listenForDecisions',
  () => {
    let pg: TestPostgres;
    let store: PostgresStore;
    let listener: DecisionListener | undefined;
    const heard: string[] = [];
    let connections = 0;

    beforeAll(async () => {
      pg = await startPostgres();
      store = createPostgresStore({ connectionString: pg.url });
      listener = listenForDecisions({
        databaseUrl: pg.url,
        onDecision: (id) => heard.push(id),
        onError: () => {},
        onConnected: () => {
          connections++;
        },
      });
      await until(() => connections === 1, 'the first connection');
    }, 60_000);

    afterAll(async () => {
      await listener?.stop();
      await store?.close();
      await pg?.stop();
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

    it('reconnects after the database restarts and hears decisions again', async () => {
      await pg.restart({ downForMs: 300 });
      await until(() => connections === 2, 'the listener to reconnect');
      await store.save(createSnapshot('after-restart', {}), { decision: true }).catch(async () => {
        // The store's pool may hand out a connection the restart cut: once more on a fresh one.
        await store.save(createSnapshot('after-restart', {}), { decision: true });
      });
      await until(() => heard.includes('after-restart'), 'the decision after the restart');
    }, 30_000);
  },
);
