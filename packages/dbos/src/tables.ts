import pg from 'pg';

/**
 * What Agate adds next to DBOS's own system tables, in a schema of its own: worker heartbeats
 * (DBOS's self-hosted recovery only knows executor ids, not which executors are alive),
 * cancellation requests (read inside each step, so a cancel lands at a step boundary), the
 * runs waiting for a decision (so a decision recorded by any process wakes its run), and the
 * revision each end of a run's round saves (so a replayed end never saves twice: end-save.ts),
 * and each run's recorded steps (step-log.ts).
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
CREATE TABLE IF NOT EXISTS ${SCHEMA}.ends (
  workflow_id text NOT NULL,
  round integer NOT NULL,
  revision bigint NOT NULL,
  PRIMARY KEY (workflow_id, round)
);
CREATE TABLE IF NOT EXISTS ${SCHEMA}.waits (
  workflow_id text PRIMARY KEY,
  session_id text NOT NULL,
  fingerprint text NOT NULL,
  since timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS ${SCHEMA}.steps (
  workflow_id text NOT NULL,
  idx integer NOT NULL,
  name text NOT NULL,
  output text,
  error jsonb,
  started_ms bigint,
  ended_ms bigint,
  PRIMARY KEY (workflow_id, idx)
);
`;

/** Keys of the advisory locks Agate takes (arbitrary, fixed, and apart from DBOS's). */
export const LOCKS = { migrate: 0x61676174_01, recovery: 0x61676174_02 } as const;

/**
 * A pool whose connections survive a database restart without crashing the process: pg emits
 * a cut connection's error on its client, which nobody hears while the client is checked out
 * between two queries. Every client hears it here; the failed query still rejects, and the
 * pool replaces the connection.
 */
export function resilientPool(connectionString: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString, max });
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  return pool;
}

/** Creates the tables once; two processes starting together wait on one advisory lock. */
export async function ensureTables(pool: pg.Pool, also?: () => Promise<unknown>): Promise<void> {
  const client = await pool.connect();
  let broken: unknown;
  const onError = (error: unknown) => {
    broken = error;
  };
  client.on('error', onError);
  try {
    // A session lock, taken by polling: a statement left waiting on the lock would hold a
    // snapshot, and DBOS's migrations (CREATE INDEX CONCURRENTLY) wait for every snapshot.
    for (;;) {
      const { rows } = await client.query<{ locked: boolean }>(
        'SELECT pg_try_advisory_lock($1) AS locked',
        [LOCKS.migrate],
      );
      if (rows[0]?.locked === true) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    try {
      await client.query(DDL);
      // The session store's and DBOS's migrations too, one process at a time.
      await also?.();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [LOCKS.migrate]);
    }
  } catch (error) {
    broken ??= error;
    throw error;
  } finally {
    // A dropped connection may still report its end after release: the listener stays.
    if (broken === undefined) client.off('error', onError);
    client.release(broken instanceof Error ? broken : undefined);
  }
}

/**
 * `work` in one transaction on one connection. A connection cut while checked out (a database
 * restart) emits an error on the client, which would crash the process unheard: it is heard
 * here, and the broken connection is dropped from the pool.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: unknown;
  const onError = (error: unknown) => {
    broken = error;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    broken ??= error;
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    // A dropped connection may still report its end after release: the listener stays.
    if (broken === undefined) client.off('error', onError);
    client.release(broken instanceof Error ? broken : undefined);
  }
}

export async function cancelRequested(pool: pg.Pool, workflowId: string): Promise<boolean> {
  const { rowCount } = await pool.query(
    `SELECT 1 FROM ${SCHEMA}.cancellations WHERE workflow_id = $1`,
    [workflowId],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * Drops a finished run's cancellation request: nothing asks for it any more (a replay of the run
 * returns its recorded steps), and every worker reads the whole table each time its listener
 * reconnects.
 */
export async function clearCancel(pool: pg.Pool, workflowId: string): Promise<void> {
  await pool.query(`DELETE FROM ${SCHEMA}.cancellations WHERE workflow_id = $1`, [workflowId]);
}

/** The channel `cancelRun` notifies (with the workflow id) as it records a cancellation. */
export const CANCEL_CHANNEL = 'agate_cancel';

/** Records a cancellation and tells the listening workers, in one statement (one transaction). */
export async function requestCancel(pool: pg.Pool, workflowId: string): Promise<void> {
  await pool.query(
    `WITH recorded AS (
       INSERT INTO ${SCHEMA}.cancellations (workflow_id) VALUES ($1) ON CONFLICT DO NOTHING
     )
     SELECT pg_notify($2, $1)`,
    [workflowId, CANCEL_CHANNEL],
  );
}
