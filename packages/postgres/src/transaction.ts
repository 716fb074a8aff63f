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
