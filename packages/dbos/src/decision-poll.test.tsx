import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { approveToolCall, type SessionStore } from '@agate/core';
import type { PostgresStore } from '@agate/postgres';
import { requirePostgres } from '@agate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalAgent } from './__fixtures__/approval-agent.js';
import { type DurableSetup, startDurable } from './__fixtures__/durable-setup.js';
import type { Client } from './index.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// A file of its own: one worker per process, here with a short decision poll.
describe.skipIf(!requirePostgres('durable runs (@agate/dbos)'))(
  'a decision nobody was told of',
  () => {
    let setup: DurableSetup | undefined;
    let dir: string;
    let client: Client;
    let store: PostgresStore;

    beforeAll(async () => {
      setup = await startDurable((logDir) => ({ dropper: approvalAgent(logDir) }), {
        decisionPollMs: 200,
      });
      ({ dir, client, store } = setup);
    }, 60_000);

    afterAll(() => setup?.stop());

    it('is found by the worker’s round (a store that does not notify), and the run goes on', async () => {
      const handle = await client.startRun({ agent: 'dropper', sessionId: 'quiet-1', input: null });
      while ((await handle.status()) !== 'awaiting-approval') await sleep(100);
      // The decision saved as any other save: no NOTIFY reaches the workers.
      const silent: SessionStore = {
        save: (snapshot, options) => store.save(snapshot, { ...options, decision: false }),
        load: (id) => store.load(id),
        list: (options) => store.list(options),
      };
      await approveToolCall(silent, 'quiet-1', 'c-drop', { by: 'ada' });
      const result = await handle.result({ timeoutMs: 30_000 });
      expect(result).toMatchObject({ status: 'completed', text: 'Dropped.' });
      expect(readFileSync(join(dir, 'dropped.log'), 'utf8')).toBe('c-drop logs\n');
    });
  },
);
