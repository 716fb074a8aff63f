import { SnapshotError, StaleSessionError } from '@agate/core';
import pg from 'pg';
import { isConnectionError } from './connection-problem.js';
import { migrateSchema, quoteSchema } from './migrations.js';
import { inTransaction } from './transaction.js';

/**
 * The store's database: its pool, its schema, and queries and transactions that apply the
 * migrations first and turn a driver's error into a `SnapshotError` saying what was being done.
 */
export interface StoreDb {
  readonly pool: pg.Pool;
  readonly schema: string;
  /** The schema quoted for SQL text. */
  readonly s: string;
  /** Whether the store made the pool (and ends it on close). */
  readonly owned: boolean;
  migrate: () => ReturnType<typeof migrateSchema>;
  whenReady(): Promise<unknown>;
  query<R extends pg.QueryResultRow>(
    what: string,
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>>;
  /** Runs `fn` in one transaction on one connection; a broken connection is discarded. */
  transaction<T>(what: string, fn: (c: pg.PoolClient) => Promise<T>): Promise<T>;
}

export function openStoreDb(
  connection: { connectionString: string } | { pool: pg.Pool },
  options: { schema: string; migrate?: boolean },
): StoreDb {
  const { schema } = options;
  const owned = !('pool' in connection);
  const pool = 'pool' in connection ? connection.pool : makePool(connection.connectionString);
  let ready: Promise<unknown> | undefined;
  const migrate = () => migrateSchema(pool, schema);
  const whenReady = () => {
    if (options.migrate === false) return Promise.resolve();
    // Retried after a failure (a server not up yet), not cached as failed.
    ready ??= migrate().catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    return ready;
  };
  const readyFor = (what: string) =>
    whenReady().catch((error: unknown) => {
      throw storeError(what, error);
    });
  return {
    pool,
    schema,
    s: quoteSchema(schema),
    owned,
    migrate,
    whenReady,
    async query<R extends pg.QueryResultRow>(what: string, text: string, values?: unknown[]) {
      await readyFor(what);
      try {
        return await pool.query<R>(text, values);
      } catch (error) {
        throw storeError(what, error);
      }
    },
    async transaction<T>(what: string, fn: (c: pg.PoolClient) => Promise<T>) {
      await readyFor(what);
      try {
        return await inTransaction(pool, fn, isConnectionError);
      } catch (error) {
        if (StaleSessionError.isInstance(error) || SnapshotError.isInstance(error)) throw error;
        throw storeError(what, error);
      }
    },
  };
}

function makePool(connectionString: string): pg.Pool {
  // allowExitOnIdle: an idle pool does not keep a finished script (or the CLI) alive.
  const pool = new pg.Pool({ connectionString, allowExitOnIdle: true });
  // An idle connection cut by a server restart must not crash the process: the pool drops
  // it, and the next query opens a new one.
  pool.on('error', () => {});
  return pool;
}

/**
 * A driver error as a `SnapshotError` (the store step of a run), saying what was being done;
 * for a lost connection, that a save may or may not have committed.
 */
export function storeError(what: string, error: unknown): SnapshotError {
  if (SnapshotError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  const hint = isConnectionError(error)
    ? what.startsWith('save')
      ? ' The connection to PostgreSQL was lost; the save may or may not have committed: load the session to see which revision is stored, then save again.'
      : ' The connection to PostgreSQL was lost; try again once the server is back.'
    : '';
  return new SnapshotError(`Could not ${what} in PostgreSQL: ${message}.${hint}`, { cause: error });
}
