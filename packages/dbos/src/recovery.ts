import type { SessionStore } from '@agate/core';
import { DBOS } from '@dbos-inc/dbos-sdk';
import type pg from 'pg';
import { fingerprint } from './end-save.js';
import { NAMES, type WakeMessage } from './options.js';
import { inTransaction, LOCKS, resilientPool, SCHEMA } from './tables.js';

export interface Watchman {
  /** One round now (tests, and the first round at launch). */
  round(): Promise<void>;
  /** Wakes the runs of `sessionId` that wait for a decision, if it was decided (a notification). */
  wakeSession(sessionId: string): void;
  /** No more rounds or heartbeats from this worker (the first half of stopping). */
  stopRounds(): Promise<void>;
  /**
   * Marks this worker gone: with `handOver`, as left on purpose, so that the next round of any
   * live worker takes its runs at once; else its row is removed. Call once nothing runs here.
   */
  leave(options: { handOver: boolean }): Promise<void>;
}

/**
 * What self-hosted DBOS lacks, added by Agate (docs/durable.md, "Recovery"):
 * - a heartbeat row per worker, so a live worker can tell a dead executor from a busy one;
 * - taking over a dead worker's runs: under one Postgres advisory lock (so exactly one live
 *   worker does it), DBOS's own `listWorkflows` (pending, that executor) and `resumeWorkflows`
 *   (back onto the queue) — DBOS then hands each run to one worker, which replays it;
 * - waking runs that wait for a decision once the stored session changed (a decision recorded
 *   by `approveCheckpoint` in any process): DBOS's `send`, idempotent per stored revision. At
 *   once when the store's save notifies the decision (`wakeSession`, from the worker's
 *   listener), and every `decisionPollMs` for any decision this worker did not hear of.
 */
export function startWatchman(options: {
  pool: pg.Pool;
  store: SessionStore;
  databaseUrl: string;
  executorId: string;
  recoveryAfterMs: number;
  decisionPollMs: number;
  onError: (error: unknown) => void;
}): Watchman {
  const { pool, store, executorId, recoveryAfterMs, databaseUrl, decisionPollMs } = options;
  // At least once a second: a decision should wake its run about at once.
  const everyMs = Math.min(1_000, Math.max(100, Math.floor(recoveryAfterMs / 4)));
  let running: Promise<void> | undefined;
  let stopped = false;

  const heartbeat = startHeartbeat(databaseUrl, executorId, recoveryAfterMs, options.onError);
  const beat = heartbeat.beat;

  const round = async () => {
    await beat();
    await inTransaction(pool, async (client) => {
      const { rows } = await client.query<{ locked: boolean }>(
        'SELECT pg_try_advisory_xact_lock($1) AS locked',
        [LOCKS.recovery],
      );
      // Another live worker is doing this round; one is enough.
      if (rows[0]?.locked !== true) return;
      await takeOver(client, executorId, recoveryAfterMs);
      if (Date.now() - lastPoll < decisionPollMs) return;
      lastPoll = Date.now();
      await wake(client, store);
    });
  };
  let lastPoll = Number.NEGATIVE_INFINITY;

  const timer = setInterval(() => {
    if (running !== undefined || stopped) return;
    running = round()
      .catch(options.onError)
      .finally(() => {
        running = undefined;
      });
  }, everyMs);
  timer.unref();

  return {
    round,
    wakeSession(sessionId) {
      // Every live worker hears a decision; the send is idempotent, so the run is woken once.
      if (!stopped) wake(pool, store, sessionId).catch(options.onError);
    },
    async stopRounds() {
      stopped = true;
      clearInterval(timer);
      await running;
      await heartbeat.stop();
    },
    async leave({ handOver }) {
      await this.stopRounds();
      // A worker leaving on purpose is "dead" at once: live workers take its runs next round.
      const sql = handOver
        ? `UPDATE ${SCHEMA}.workers SET heartbeat_at = 'epoch' WHERE executor_id = $1`
        : `DELETE FROM ${SCHEMA}.workers WHERE executor_id = $1`;
      await heartbeat.pool.query(sql, [executorId]).finally(() => heartbeat.pool.end());
    },
  };
}

/**
 * The worker's heartbeat row, on a connection and a timer of its own: busy runs (the pool) or
 * a slow takeover round never make a live worker look dead.
 */
function startHeartbeat(
  databaseUrl: string,
  executorId: string,
  recoveryAfterMs: number,
  onError: (error: unknown) => void,
): { pool: pg.Pool; beat: () => Promise<unknown>; stop: () => Promise<void> } {
  const pool = resilientPool(databaseUrl, 1);
  const beat = () =>
    pool.query(
      `INSERT INTO ${SCHEMA}.workers (executor_id, heartbeat_at, pid, host)
       VALUES ($1, now(), $2, $3)
       ON CONFLICT (executor_id) DO UPDATE SET heartbeat_at = now(), pid = EXCLUDED.pid, host = EXCLUDED.host`,
      [executorId, process.pid, process.env.HOSTNAME ?? null],
    );
  let beating: Promise<unknown> | undefined;
  const timer = setInterval(
    () => {
      beating ??= beat()
        .catch(onError)
        .finally(() => {
          beating = undefined;
        });
    },
    Math.max(50, Math.floor(recoveryAfterMs / 6)),
  );
  timer.unref();
  return {
    pool,
    beat,
    async stop() {
      clearInterval(timer);
      await beating;
    },
  };
}

/** Puts the runs of workers silent for `recoveryAfterMs` back on the queue (under the lock). */
async function takeOver(
  client: pg.PoolClient,
  executorId: string,
  recoveryAfterMs: number,
): Promise<void> {
  const { rows } = await client.query<{ executor_id: string; left: boolean }>(
    `SELECT executor_id, heartbeat_at = 'epoch' AS left FROM ${SCHEMA}.workers
     WHERE executor_id <> $1 AND heartbeat_at < now() - make_interval(secs => $2::double precision / 1000)`,
    [executorId, recoveryAfterMs],
  );
  for (const { executor_id: dead, left } of rows) {
    const pending = await DBOS.listWorkflows({
      status: 'PENDING',
      executorId: dead,
      workflowName: NAMES.workflow,
      loadInput: false,
      loadOutput: false,
    });
    // A silent heartbeat with steps still being recorded is a starved process, not a dead one
    // (a worker that left on purpose recorded its last step before it said so).
    if (
      !left &&
      (await recentlyStepped(
        client,
        pending.map((w) => w.workflowID),
        recoveryAfterMs,
      ))
    )
      continue;
    if (pending.length > 0) {
      await DBOS.resumeWorkflows(
        pending.map((w) => w.workflowID),
        { queueName: NAMES.queue },
      );
    }
    await client.query(`DELETE FROM ${SCHEMA}.workers WHERE executor_id = $1`, [dead]);
  }
}

/**
 * Wakes the waiting runs (of `sessionId`, or all) whose stored session changed since their
 * wait: DBOS's `send`, idempotent per stored revision.
 */
async function wake(
  client: pg.PoolClient | pg.Pool,
  store: SessionStore,
  sessionId?: string,
): Promise<void> {
  const { rows } = await client.query<{
    workflow_id: string;
    session_id: string;
    fingerprint: string;
  }>(
    `SELECT workflow_id, session_id, fingerprint FROM ${SCHEMA}.waits${
      sessionId === undefined ? '' : ' WHERE session_id = $1'
    }`,
    sessionId === undefined ? [] : [sessionId],
  );
  for (const row of rows) {
    const stored = await store.load(row.session_id);
    if (stored === undefined) continue;
    const now = fingerprint(stored);
    if (now === row.fingerprint) continue;
    const message: WakeMessage = { kind: 'changed', fingerprint: now };
    await DBOS.send(row.workflow_id, message, NAMES.topic, `${row.workflow_id}:${now}`);
  }
}

/** True when any of `workflowIds` recorded a step within the last `withinMs` (step-log.ts). */
async function recentlyStepped(
  db: pg.ClientBase,
  workflowIds: readonly string[],
  withinMs: number,
): Promise<boolean> {
  if (workflowIds.length === 0) return false;
  const { rowCount } = await db.query(
    `SELECT 1 FROM ${SCHEMA}.steps WHERE workflow_id = ANY($1) AND ended_ms > $2 LIMIT 1`,
    [workflowIds, Date.now() - withinMs],
  );
  return (rowCount ?? 0) > 0;
}
