import type pg from 'pg';

/**
 * What Agate adds next to DBOS's own system tables, in a schema of its own: worker heartbeats
 * (DBOS's self-hosted recovery only knows executor ids, not which executors are alive),
 * cancellation requests (read inside each step, so a cancel lands at a step boundary), and the
 * runs waiting for a decision (so a decision recorded by any process wakes its run).
 */
export const SCHEMA = 'agate_dbos';

const DDL = `
CREATE SCHEMA IF NOT EXISTS ${SCHEMA};
CREATE TABLE IF NOT EXISTS ${SCHEMA}.workers (
  executor_id text PRIMARY KEY,
  heartbeat_at timestamptz NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  pid integer,
  host text
);
CREATE TABLE IF NOT EXISTS ${SCHEMA}.cancellations (
  workflow_id text PRIMARY KEY,
  requested_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS ${SCHEMA}.waits (
  workflow_id text PRIMARY KEY,
  session_id text NOT NULL,
  fingerprint text NOT NULL,
  since timestamptz NOT NULL DEFAULT now()
);
`;

/** Keys of the advisory locks Agate takes (arbitrary, fixed, and apart from DBOS's). */
export const LOCKS = { migrate: 0x61676174_01, recovery: 0x61676174_02 } as const;

/** Creates the tables once; two processes starting together wait on one advisory lock. */
export async function ensureTables(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [LOCKS.migrate]);
    await client.query(DDL);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

export async function cancelRequested(pool: pg.Pool, workflowId: string): Promise<boolean> {
  const { rowCount } = await pool.query(
    `SELECT 1 FROM ${SCHEMA}.cancellations WHERE workflow_id = $1`,
    [workflowId],
  );
  return (rowCount ?? 0) > 0;
}

export async function requestCancel(pool: pg.Pool, workflowId: string): Promise<void> {
  await pool.query(
    `INSERT INTO ${SCHEMA}.cancellations (workflow_id) VALUES ($1) ON CONFLICT DO NOTHING`,
    [workflowId],
  );
}
