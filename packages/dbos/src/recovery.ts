import type { SessionStore } from '@agate/core';
import { DBOS } from '@dbos-inc/dbos-sdk';
import type pg from 'pg';
import { NAMES, type WakeMessage } from './options.js';
import { LOCKS, SCHEMA } from './tables.js';
import { fingerprint } from './workflow.js';

export interface Watchman {
  /** One round now (tests, and the first round at launch). */
  round(): Promise<void>;
  /** Marks this worker gone (its runs are taken over at the next round of any live worker). */
  stop(options: { handOver: boolean }): Promise<void>;
}

/**
 * What self-hosted DBOS lacks, added by Agate (docs/durable.md, "Recovery"):
 * - a heartbeat row per worker, so a live worker can tell a dead executor from a busy one;
 * - taking over a dead worker's runs: under one Postgres advisory lock (so exactly one live
 *   worker does it), DBOS's own `listWorkflows` (pending, that executor) and `resumeWorkflows`
 *   (back onto the queue) — DBOS then hands each run to one worker, which replays it;
 * - waking runs that wait for a decision once the stored session changed (a decision recorded
 *   by `approveCheckpoint` in any process): DBOS's `send`, idempotent per stored revision.
 */
export function startWatchman(options: {
  pool: pg.Pool;
  store: SessionStore;
  executorId: string;
  recoveryAfterMs: number;
  onError: (error: unknown) => void;
}): Watchman {
  const { pool, store, executorId, recoveryAfterMs } = options;
  // At least once a second: a decision should wake its run about at once.
  const everyMs = Math.min(1_000, Math.max(100, Math.floor(recoveryAfterMs / 4)));
  let running: Promise<void> | undefined;
  let stopped = false;

  const beat = () =>
    pool.query(
      `INSERT INTO ${SCHEMA}.workers (executor_id, heartbeat_at, pid, host)
       VALUES ($1, now(), $2, $3)
       ON CONFLICT (executor_id) DO UPDATE SET heartbeat_at = now(), pid = EXCLUDED.pid, host = EXCLUDED.host`,
      [executorId, process.pid, process.env.HOSTNAME ?? null],
    );

  const round = async () => {
    await beat();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ locked: boolean }>(
        'SELECT pg_try_advisory_xact_lock($1) AS locked',
        [LOCKS.recovery],
      );
      // Another live worker is doing this round; one is enough.
      if (rows[0]?.locked === true) {
        await takeOver(client);
        await wake(client);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  };

  const takeOver = async (client: pg.PoolClient) => {
    const { rows } = await client.query<{ executor_id: string }>(
      `SELECT executor_id FROM ${SCHEMA}.workers
       WHERE executor_id <> $1 AND heartbeat_at < now() - make_interval(secs => $2::double precision / 1000)`,
      [executorId, recoveryAfterMs],
    );
    for (const { executor_id: dead } of rows) {
      const pending = await DBOS.listWorkflows({
        status: 'PENDING',
        executorId: dead,
        workflowName: NAMES.workflow,
        loadInput: false,
        loadOutput: false,
      });
      if (pending.length > 0) {
        await DBOS.resumeWorkflows(
          pending.map((w) => w.workflowID),
          { queueName: NAMES.queue },
        );
      }
      await client.query(`DELETE FROM ${SCHEMA}.workers WHERE executor_id = $1`, [dead]);
    }
  };

  const wake = async (client: pg.PoolClient) => {
    const { rows } = await client.query<{
      workflow_id: string;
      session_id: string;
      fingerprint: string;
    }>(`SELECT workflow_id, session_id, fingerprint FROM ${SCHEMA}.waits`);
    for (const row of rows) {
      const stored = await store.load(row.session_id);
      if (stored === undefined) continue;
      const now = fingerprint(stored);
      if (now === row.fingerprint) continue;
      const message: WakeMessage = { kind: 'changed', fingerprint: now };
      await DBOS.send(row.workflow_id, message, NAMES.topic, `${row.workflow_id}:${now}`);
    }
  };

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
    async stop({ handOver }) {
      stopped = true;
      clearInterval(timer);
      await running;
      // A worker leaving on purpose is "dead" at once: live workers take its runs next round.
      const sql = handOver
        ? `UPDATE ${SCHEMA}.workers SET heartbeat_at = 'epoch' WHERE executor_id = $1`
        : `DELETE FROM ${SCHEMA}.workers WHERE executor_id = $1`;
      await pool.query(sql, [executorId]);
    },
  };
}
