import type { Pool, PoolClient } from 'pg';

/**
 * `work` in one transaction on one connection of `pool`. A connection cut while checked out
 * emits 'error' on the client, which would otherwise be an uncaught exception: it is heard here,
 * and the failing query reports it. The connection goes back to the pool, or is discarded when
 * it broke: an 'error' on it, a rollback that failed, or a failure `breaks` says is the link's.
 */
export async function inTransaction<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
  breaks: (error: unknown) => boolean,
): Promise<T> {
  guardNewConnections(pool);
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken = error;
  };
  client.on('error', onError);
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch((rollbackError: unknown) => {
      broken = rollbackError as Error;
    });
    if (breaks(error)) broken ??= error as Error;
    throw error;
  } finally {
    // A dropped connection may still report its end after release: the listener stays.
    if (broken === undefined) client.off('error', onError);
    client.release(broken);
  }
}

const guarded = new WeakSet<Pool>();

/**
 * Gives every connection `pool` opens from now on an 'error' listener of its own. A new
 * connection is handed to `await pool.connect()` from inside the socket read that brought the
 * server's "ready"; when that same read also brings "terminating connection" (a server
 * stopping at that moment), the client emits 'error' before the caller resumes and can
 * listen, and an 'error' nobody hears crashes the process. Nothing is lost by hearing it here:
 * the client is marked broken, its next query fails with the connection error, and the pool
 * discards it on release. Idle connections stay the pool's (its 'error' event).
 */
function guardNewConnections(pool: Pool): void {
  if (guarded.has(pool)) return;
  guarded.add(pool);
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
}
