import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { approveCheckpoint, approveToolCall, type JsonValue } from '@agate/core';
import type { PostgresStore } from '@agate/postgres';
import { requirePostgres, scaledLimit, type TestPostgres } from '@agate/testing';
import { DBOSClient } from '@dbos-inc/dbos-sdk';
import postgres from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { approvalAgent } from './__fixtures__/approval-agent.js';
import { checkpointAgent } from './__fixtures__/checkpoint-agent.js';
import { CALLS_PER_RUN, countingAgents } from './__fixtures__/counting-agent.js';
import { type DurableSetup, startDurable } from './__fixtures__/durable-setup.js';
import {
  type Client,
  type DurableAgent,
  InvalidRunRequestError,
  launchWorker,
  RUN_REQUEST_LIMITS,
  RunActiveError,
  RunNotFoundError,
  type WorkerEvent,
  WorkerRunningError,
} from './index.js';
import { NAMES } from './options.js';
import { setStepProbe } from './step-probe.js';

/**
 * For the DBOS clients these tests make on a URL: DBOS's own pool sets each new connection's
 * idle timeout with a query it does not wait for, and pg warns that the caller's query was
 * queued behind it (deprecated, an error in pg 9). Agate's client and worker give DBOS a pool
 * of their own, which DBOS leaves alone.
 */
const QUIET_CLIENT = { systemDatabaseIdleTransactionTimeoutMs: 0 } as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The agents' call log so far ('' before the first call writes it). */
const readLog = (dir: string) => {
  try {
    return readFileSync(join(dir, 'calls.log'), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
};

describe.skipIf(!requirePostgres('durable runs (@agate/dbos)'))('durable runs', () => {
  /** What the worker said (printed on stderr by default). */
  const events: WorkerEvent[] = [];
  let setup: DurableSetup | undefined;
  let pg: TestPostgres;
  let dir: string;
  let client: Client;
  let store: PostgresStore;

  beforeAll(async () => {
    setup = await startDurable(
      (logDir) => ({
        ...countingAgents(logDir, 5),
        slow: countingAgents(logDir, 300).counting as DurableAgent,
        review: checkpointAgent(),
        dropper: approvalAgent(logDir),
      }),
      {
        concurrency: 4,
        // The decision tests approve within this; the timeout test waits it out. 4 s, scaled by
        // the machine's measured speed: on an overloaded machine an approval made at once took
        // longer than 4 s to wake its run, which had ended awaiting-approval by then.
        approvalTimeoutMs: scaledLimit(4_000),
        // No poll in this file's life: a decision must wake its run through the store's notification.
        decisionPollMs: 3_600_000,
        onEvent: (event) => events.push(event),
      },
    );
    ({ pg, dir, client, store } = setup);
  }, 60_000);

  afterAll(() => setup?.stop());
  const callsLog = () => readLog(dir);

  const start = (agent: string, sessionId: string, input: JsonValue = { run: sessionId }) =>
    client.startRun({ agent, sessionId, input });

  it('runs queued runs to the end, each tool call once, and saves them to the PostgreSQL store', async () => {
    const handles = await Promise.all(['a', 'b', 'c'].map((r) => start('counting', `s-${r}`)));
    const results = await Promise.all(handles.map((h) => h.result({ timeoutMs: 30_000 })));
    expect(results.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
    expect(results[0]?.ticks).toBe(CALLS_PER_RUN + 1);
    const calls = readFileSync(join(dir, 'calls.log'), 'utf8').trim().split('\n');
    expect(calls.filter((c) => c.startsWith('s-'))).toHaveLength(3 * CALLS_PER_RUN);
    expect(new Set(calls).size).toBe(calls.length);
    expect(await handles[0]?.status()).toBe('completed');
    // What `agate sessions` / `show` read: the session, its status and every tick.
    const saved = await store.load('s-a');
    expect(saved?.state).toMatchObject({ status: 'completed', tick: CALLS_PER_RUN + 1 });
    const listed = await store.list({ status: 'completed' });
    expect(listed.map((s) => s.id)).toEqual(expect.arrayContaining(['s-a', 's-b', 's-c']));
  });

  it("runs a run enqueued in DBOS's default format (an earlier client) and reads both formats", async () => {
    // startRun writes DBOS's portable JSON; a run enqueued before that change names superjson.
    const dbos = await DBOSClient.create({
      ...QUIET_CLIENT,
      systemDatabaseUrl: pg.url,
      applicationName: 'agate',
    });
    const db = new postgres.Client({ connectionString: pg.url });
    await db.connect();
    try {
      await dbos.enqueue(
        {
          queueName: 'agate-runs',
          workflowName: 'agate-run',
          workflowID: 'agate/legacy/old-format',
          appVersion: 'agate-2',
          deduplicationID: 'legacy',
        },
        { agent: 'counting', sessionId: 'legacy', input: { run: 'legacy' } },
      );
      const fresh = await start('counting', 'portable');
      const results = await Promise.all([
        client.getRun('legacy').then((h) => h.result({ timeoutMs: 30_000 })),
        fresh.result({ timeoutMs: 30_000 }),
      ]);
      expect(results.map((r) => [r.status, r.ticks])).toEqual([
        ['completed', CALLS_PER_RUN + 1],
        ['completed', CALLS_PER_RUN + 1],
      ]);
      const { rows } = await db.query<{ id: string; serialization: string }>(
        `SELECT workflow_uuid AS id, serialization FROM dbos.workflow_status
         WHERE workflow_uuid = ANY($1) ORDER BY workflow_uuid`,
        [['agate/legacy/old-format', fresh.runId]],
      );
      expect(rows.map((r) => r.serialization)).toEqual(['js_superjson', 'portable_json']);
    } finally {
      await db.end();
      await dbos.destroy();
    }
  });

  it('refuses a second run of a session while one is active, and unknown sessions', async () => {
    const first = await start('slow', 'busy');
    await expect(start('slow', 'busy')).rejects.toBeInstanceOf(RunActiveError);
    await expect(client.getRun('nobody')).rejects.toBeInstanceOf(RunNotFoundError);
    await client.cancelRun('busy');
    expect((await first.result({ timeoutMs: 30_000 })).status).toBe('aborted');
  });

  it('cancelRun aborts at the next step boundary with the state saved', async () => {
    const handle = await start('slow', 'cancel-me');
    while (!callsLog().includes('cancel-me-c1')) await sleep(50);
    await client.cancelRun('cancel-me');
    const result = await handle.result({ timeoutMs: 30_000 });
    expect(result.status).toBe('aborted');
    expect(result.reason).toContain('cancelRun');
    expect(result.totalTicks).toBeLessThan(CALLS_PER_RUN + 1);
    const saved = await store.load('cancel-me');
    expect(saved?.state).toMatchObject({ status: 'aborted', tick: result.totalTicks });
    // The request went with the run: the table every worker reads on reconnecting does not grow
    // with every cancelled run.
    const db = new postgres.Client({ connectionString: pg.url });
    await db.connect();
    try {
      const { rows } = await db.query(
        'SELECT workflow_id FROM agate_dbos.cancellations WHERE workflow_id = $1',
        [handle.runId],
      );
      expect(rows).toEqual([]);
    } finally {
      await db.end();
    }
  });

  it('waits durably for a checkpoint decision and goes on when approveCheckpoint records it', async () => {
    const handle = await start('review', 'review-1', null);
    while ((await handle.status()) !== 'awaiting-approval') await sleep(100);
    await approveCheckpoint(store, 'review-1', 'T-1', { by: 'ada' });
    const result = await handle.result({ timeoutMs: 30_000 });
    expect(result.status).toBe('completed');
    expect(result.text).toBe('Done.');
    expect(result.checkpointLedger.map((e) => e.kind)).toContain('approved');
  });

  it('waits durably for a tool-call approval and runs the call once when approveToolCall records it', async () => {
    const handle = await start('dropper', 'drop-1', null);
    while ((await handle.status()) !== 'awaiting-approval') await sleep(100);
    const waiting = await store.load('drop-1');
    expect(waiting?.state).toMatchObject({
      status: 'awaiting-approval',
      guards: {
        approvals: { calls: [{ id: 'c-drop', toolName: 'drop_table', state: 'pending' }] },
      },
    });
    await approveToolCall(store, 'drop-1', 'c-drop', { by: 'ada' });
    const result = await handle.result({ timeoutMs: 30_000 });
    expect(result).toMatchObject({ status: 'completed', text: 'Dropped.' });
    expect(readFileSync(join(dir, 'dropped.log'), 'utf8')).toBe('c-drop logs\n');
  });

  it('a wake sent for an earlier wait does not resume a run: it waits on for its own decision', async () => {
    // The race behind a lost decision: a watchman reads a wait, the run goes on and saves its
    // next end, then the watchman loads that end and sends it as "changed". Here the message is
    // sent by hand, naming the run's own end, before the real decision.
    const db = new postgres.Client({ connectionString: pg.url });
    await db.connect();
    const dbos = await DBOSClient.create({ ...QUIET_CLIENT, systemDatabaseUrl: pg.url });
    try {
      const handle = await start('dropper', 'drop-stale', null);
      const print = await vi.waitFor(
        async () => {
          const { rows } = await db.query<{ fingerprint: string }>(
            'SELECT fingerprint FROM agate_dbos.waits WHERE workflow_id = $1',
            [handle.runId],
          );
          if (rows[0] === undefined) throw new Error('not waiting yet');
          return rows[0].fingerprint;
        },
        { timeout: 30_000, interval: 50 },
      );
      await dbos.send(handle.runId, { kind: 'changed', fingerprint: print }, NAMES.topic, 'stale');
      // Consumed by the run's wait (DBOS marks it in the receive's own transaction).
      await vi.waitFor(
        async () => {
          const { rows } = await db.query<{ consumed: boolean }>(
            'SELECT consumed FROM dbos.notifications WHERE destination_uuid = $1',
            [handle.runId],
          );
          if (rows[0]?.consumed !== true) throw new Error('not received yet');
        },
        { timeout: 30_000, interval: 50 },
      );
      await approveToolCall(store, 'drop-stale', 'c-drop', { by: 'ada' });
      const result = await handle.result({ timeoutMs: 30_000 });
      expect(result).toMatchObject({ status: 'completed', text: 'Dropped.' });
      const { rows } = await db.query<{ name: string }>(
        'SELECT name FROM agate_dbos.steps WHERE workflow_id = $1 ORDER BY idx',
        [handle.runId],
      );
      // One wait, one resume: the stale wake started no round of its own.
      expect(rows.filter((r) => r.name === 'agate:resume')).toHaveLength(1);
      expect(rows.filter((r) => r.name === 'agate:end')).toHaveLength(2);
    } finally {
      await dbos.destroy();
      await db.end();
    }
  });

  it('ends awaiting-approval when no decision comes within approvalTimeoutMs', async () => {
    const handle = await start('review', 'review-2', null);
    const result = await handle.result({ timeoutMs: 30_000 });
    expect(result.status).toBe('awaiting-approval');
    expect((await store.load('review-2'))?.state).toMatchObject({ status: 'awaiting-approval' });
  });

  it('one worker per process', async () => {
    await expect(
      launchWorker({ databaseUrl: pg.url, agents: countingAgents(dir) }),
    ).rejects.toBeInstanceOf(WorkerRunningError);
  });

  it('refuses forged and oversized run requests before anything runs, in the client and in the worker', async () => {
    const big = 'x'.repeat(RUN_REQUEST_LIMITS.inputBytes + 1);
    await expect(start('counting', 'too-big', { text: big })).rejects.toBeInstanceOf(
      InvalidRunRequestError,
    );
    await expect(
      client.startRun({ agent: 'counting', sessionId: 'bad-opts', runOptions: { maxTicks: -1 } }),
    ).rejects.toThrow(/maxTicks must be a whole number/);

    // Straight onto DBOS's queue, as anyone who can write the database could.
    const dbos = await DBOSClient.create({
      ...QUIET_CLIENT,
      systemDatabaseUrl: pg.url,
      applicationName: 'agate',
    });
    const forged: Array<{ id: string; request: unknown; says: RegExp }> = [
      {
        id: 'agate/victim/forged-1',
        request: { agent: 'counting', sessionId: 'other', input: null },
        says: /does not belong to session "other"/,
      },
      {
        id: 'agate/proto/forged-2',
        request: { agent: 'constructor', sessionId: 'proto', input: null },
        says: /No agent named "constructor"/,
      },
      {
        id: 'agate/../forged-3',
        request: { agent: 'counting', sessionId: '../etc', input: null },
        says: /not a valid session id/,
      },
      {
        id: 'agate/huge/forged-4',
        request: { agent: 'counting', sessionId: 'huge', input: big },
        says: /input is over 1048576 bytes/,
      },
      {
        id: 'agate/opts/forged-5',
        request: { agent: 'counting', sessionId: 'opts', runOptions: { signal: {} } },
        says: /runOptions has unknown field "signal"/,
      },
      { id: 'agate/str/forged-6', request: 'run everything', says: /not an object/ },
    ];
    try {
      for (const { id, request } of forged) {
        await dbos.enqueue(
          {
            queueName: 'agate-runs',
            workflowName: 'agate-run',
            workflowID: id,
            appVersion: 'agate-2',
          },
          request,
        );
      }
      for (const { id, says } of forged) {
        await expect(
          dbos.retrieveWorkflow(id).getResult({ pollingIntervalMs: 100 }),
        ).rejects.toThrow(says);
      }
    } finally {
      await dbos.destroy();
    }
    // The worker says so, one line each. DBOS logs a workflow's error after it records it, so
    // a result can be read before its line is said: wait for the line, not for the result.
    const said = () => events.map((e) => (e.type === 'warning' ? e.message : '')).join('\n');
    for (const { says } of forged) {
      await vi.waitFor(() => expect(said()).toMatch(says), { timeout: 10_000, interval: 50 });
    }
    for (const session of ['victim', 'other', 'proto', 'huge', 'opts', 'too-big']) {
      expect(await store.load(session)).toBeUndefined();
      expect(callsLog()).not.toContain(session);
    }
  });

  it('an execution that lost its run records nothing: the step, its save and what follows roll back', async () => {
    const takeover = new postgres.Client({ connectionString: pg.url });
    const watch = new postgres.Client({ connectionString: pg.url });
    await Promise.all([takeover.connect(), watch.connect()]);
    let runId = '';
    let released: (() => void) | undefined;
    const atRecord = new Promise<void>((resolve) => {
      released = resolve;
    });
    // At the first model step, after the call and before its record, another execution claims
    // the run (what a recovering worker's claim writes: a new ownership token), and holds the
    // run's row until the record has come to its ownership check.
    setStepProbe(async ({ workflowId, step, phase }) => {
      if (!workflowId.startsWith('agate/fenced/') || step !== 'agate:model' || phase !== 'during') {
        return;
      }
      runId = workflowId;
      await takeover.query('BEGIN');
      await takeover.query(
        "UPDATE dbos.workflow_status SET owner_xid = 'another' WHERE workflow_uuid = $1",
        [workflowId],
      );
      released?.();
    });
    /** The backend of the record waiting on the run's row, once it waits there. */
    const waiting = async () =>
      (
        await watch.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FOR NO KEY UPDATE%'`,
        )
      ).rows[0]?.pid;
    try {
      await start('counting', 'fenced');
      await atRecord;
      const pid = await vi.waitFor(
        async () => {
          const found = await waiting();
          if (found === undefined)
            throw new Error('the record has not reached its ownership check');
          return found;
        },
        { timeout: 20_000, interval: 20 },
      );
      await takeover.query('COMMIT');
      // Its transaction has ended (rolled back: the run is another's now).
      await vi.waitFor(
        async () => {
          const { rows } = await watch.query<{ state: string }>(
            'SELECT state FROM pg_stat_activity WHERE pid = $1',
            [pid],
          );
          if (rows[0]?.state !== 'idle') throw new Error(`record still ${rows[0]?.state}`);
        },
        { timeout: 20_000, interval: 20 },
      );
      const { rows } = await watch.query<{ name: string }>(
        'SELECT name FROM agate_dbos.steps WHERE workflow_id = $1 ORDER BY idx',
        [runId],
      );
      expect(rows.map((r) => r.name)).toEqual(['agate:start']);
      expect(await store.load('fenced')).toBeUndefined();
      expect(callsLog()).not.toContain('fenced');
    } finally {
      setStepProbe(undefined);
      await takeover.end();
      await watch.end();
    }
  });
});
