import type { SessionSnapshot, SessionStore } from '@agate/core';
import { SnapshotError, StaleSessionError } from '@agate/core';
import { assertValidSessionId, type SaveOptions } from '@agate/core/stores';
import type pg from 'pg';
import { isConnectionError } from './connection-problem.js';
import type { MigrateResult } from './migrations.js';
import { restorePointRows, tickRows } from './restore-points-ticks.js';
import { SavedLists } from './saved-lists.js';
import { listSessions, loadSession } from './session-rows.js';
import { prepareSave } from './session-save.js';
import { openStoreDb, storeError } from './store-db.js';
import { inTransaction } from './transaction.js';

/**
 * Where the store connects: a connection string (the store owns its pool) or your pool. On
 * your pool, the store gives each connection the pool opens an 'error' listener (a connection
 * cut as it is handed over must not crash the process); the pool's own 'error' event, for
 * idle connections, stays yours to listen to, as node-postgres asks.
 */
export type PostgresConnection = { connectionString: string } | { pool: pg.Pool };

export interface PostgresStoreOptions {
  /** The schema holding the store's tables. Default `agate`. */
  schema?: string;
  /** Apply migrations on first use (default true). Off: run `agate db migrate` first. */
  migrate?: boolean;
}

/** A `SessionStore` on PostgreSQL, with every optional part, `close()` and `migrate()`. */
export type PostgresStore = SessionStore &
  Required<
    Pick<
      SessionStore,
      | 'delete'
      | 'saveRestorePoint'
      | 'loadRestorePoint'
      | 'listRestorePoints'
      | 'appendTicks'
      | 'loadTicks'
    >
  > &
  PostgresStoreExtras;

/** What a PostgreSQL store adds to the `SessionStore` contract. */
export interface PostgresStoreExtras {
  /**
   * Runs `work` in one transaction of the store's database: the saves it makes through `save`
   * commit or roll back with whatever else `work` writes through `client` (for a durable engine
   * that records a step and saves the session in one commit). The store's revision checks and
   * notifications hold as in `save`.
   */
  transact<T>(work: (tx: PostgresTransaction) => Promise<T>): Promise<T>;
  /** Applies the migrations now (otherwise they run on first use). */
  migrate(): Promise<MigrateResult>;
  /** Ends the pool when the store made it (from a connection string); yours stays open. */
  close(): Promise<void>;
  /** The schema its tables live in (`agate` unless `PostgresStoreOptions.schema` said). */
  readonly schema: string;
}

/** What `transact` hands its work: the transaction's connection, and a save made on it. */
export interface PostgresTransaction {
  /** The connection the transaction holds: queries made through it commit with the saves. */
  readonly client: pg.PoolClient;
  /** `SessionStore.save`, inside the transaction (its revision check and notification too). */
  save(snapshot: SessionSnapshot, options?: SaveOptions): Promise<void>;
}

export const DEFAULT_SCHEMA = 'agate';

export { DECISION_CHANNEL } from './session-save.js';

/**
 * A session store on PostgreSQL (node-postgres). Revisions are a column compared under the
 * row's lock (`select … for update`), so a conditional save is atomic across processes and
 * machines. A session's timeline and call signatures are kept as one row per item: a save
 * inserts the tick's new items and updates the session row, so saving tick 2,000 costs what
 * tick 10 costs. Tables come from numbered migrations, applied on first use under an advisory
 * lock.
 */
export function createPostgresStore(
  connection: PostgresConnection,
  options: PostgresStoreOptions = {},
): PostgresStore {
  const db = openStoreDb(connection, {
    schema: options.schema ?? DEFAULT_SCHEMA,
    ...(options.migrate !== undefined ? { migrate: options.migrate } : {}),
  });
  /** What this store wrote in its last save of each running session. */
  const saved = new SavedLists();

  return {
    schema: db.schema,
    migrate: db.migrate,

    async close() {
      saved.clear();
      if (db.owned) await db.pool.end();
    },

    async save(snapshot: SessionSnapshot, saveOptions?: SaveOptions) {
      const write = prepareSave(db, saved, snapshot, saveOptions);
      const written = await db.transaction(`save session "${snapshot.id}"`, write.run);
      write.committed(written);
    },

    async transact<T>(work: (tx: PostgresTransaction) => Promise<T>): Promise<T> {
      await db.whenReady().catch((error: unknown) => {
        throw storeError('transaction', error);
      });
      const commits: Array<() => void> = [];
      // What `work` throws reaches the caller as it is (a durable engine's own errors).
      const result = await inTransaction(
        db.pool,
        (client) =>
          work({
            client,
            async save(snapshot, saveOptions) {
              const write = prepareSave(db, saved, snapshot, saveOptions);
              const written = await write.run(client).catch((error: unknown) => {
                if (StaleSessionError.isInstance(error) || SnapshotError.isInstance(error)) {
                  throw error;
                }
                throw storeError(`save session "${snapshot.id}"`, error);
              });
              commits.push(() => write.committed(written));
            },
          }),
        isConnectionError,
      );
      for (const committed of commits) committed();
      return result;
    },

    load: (id) => loadSession(db, id),
    list: (listOptions) => listSessions(db, listOptions),

    async delete(id) {
      assertValidSessionId(id);
      saved.take(id);
      return db.transaction(`delete session "${id}"`, async (client) => {
        const gone = await client.query(
          `delete from ${db.s}.sessions where id = $1 and revision > 0`,
          [id],
        );
        await client.query(`delete from ${db.s}.restore_points where session_id = $1`, [id]);
        await client.query(`delete from ${db.s}.ticks where session_id = $1`, [id]);
        return (gone.rowCount ?? 0) > 0;
      });
    },

    ...restorePointRows(db),
    ...tickRows(db),
  };
}
