import { randomUUID } from 'node:crypto';
import {
  type SessionSnapshot,
  type SessionStore,
  SnapshotError,
  StaleSessionError,
} from '@agate/core';
import {
  assertRestorePoint,
  assertValidSessionId,
  isSettledJson,
  type ListOptions,
  migrateState,
  parseSnapshot,
  type RestorePointSummary,
  restorePointRef,
  type SaveOptions,
  type SessionSummary,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  serializeSnapshot,
  type TickRecord,
} from '@agate/core/stores';
import pg from 'pg';
import { isConnectionError } from './connection-problem.js';
import { type MigrateResult, migrateSchema, quoteSchema } from './migrations.js';
import { SavedLists } from './saved-lists.js';
import { type ListColumns, listColumns, STORED_LISTS, writeList } from './stored-lists.js';
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

/**
 * The channel a save that records a person's decision (`SaveOptions.decision`) notifies, with
 * the session id as payload: `@agate/dbos` workers listen on it to wake the run that waits.
 */
export const DECISION_CHANNEL = 'agate_decision';

interface SessionRow {
  id: string;
  revision: string;
  saved_at: Date;
  label: string | null;
  status: string | null;
  format_version: number;
  head: string;
  has_timeline: boolean;
  timeline_start: string;
  timeline_count: string;
  timeline_tail: string;
  has_signatures: boolean;
  signatures_start: string;
  signatures_count: string;
  signatures_tail: string;
  save_id: string | null;
}

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
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const s = quoteSchema(schema);
  const owned = !('pool' in connection);
  const pool = 'pool' in connection ? connection.pool : makePool(connection.connectionString);
  let ready: Promise<unknown> | undefined;
  /** What this store wrote in its last save of each running session. */
  const saved = new SavedLists();
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

  const query = async <R extends pg.QueryResultRow>(
    what: string,
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>> => {
    await whenReady().catch((error: unknown) => {
      throw storeError(what, error);
    });
    try {
      return await pool.query<R>(text, values);
    } catch (error) {
      throw storeError(what, error);
    }
  };

  /** Runs `fn` in one transaction on one connection; a broken connection is discarded. */
  const transaction = async <T>(what: string, fn: (c: pg.PoolClient) => Promise<T>) => {
    await whenReady().catch((error: unknown) => {
      throw storeError(what, error);
    });
    try {
      return await inTransaction(pool, fn, isConnectionError);
    } catch (error) {
      if (StaleSessionError.isInstance(error) || SnapshotError.isInstance(error)) throw error;
      throw storeError(what, error);
    }
  };

  /**
   * One save: `run` writes it on a transaction's connection; `committed` keeps what it wrote
   * for the next save's diff, once that transaction has committed.
   */
  const prepareSave = (snapshot: SessionSnapshot, saveOptions?: SaveOptions) => {
    const expected = saveOptions?.expectedRevision;
    if (expected !== undefined && (!Number.isSafeInteger(expected) || expected < 0)) {
      throw new SnapshotError(
        `expectedRevision must be a whole number >= 0 (the revision load() returned), got ${String(expected)}.`,
      );
    }
    const parts = splitSnapshot(snapshot);
    const saveId = randomUUID();
    const known = saved.take(snapshot.id);
    const run = async (client: pg.PoolClient) => {
      let row = await lockRow(client, s, snapshot.id);
      if (row === undefined) {
        // A placeholder (revision 0), visible to nobody until commit. Two first saves at
        // once: the second waits here on the unique id until the first ends.
        await client.query(
          `insert into ${s}.sessions (id, revision) values ($1, 0) on conflict (id) do nothing`,
          [snapshot.id],
        );
        row = await lockRow(client, s, snapshot.id);
      }
      const stored = Number(row?.revision ?? 0);
      if (expected !== undefined && expected !== stored) {
        throw new StaleSessionError(snapshot.id, expected, stored);
      }
      // What this store wrote is what is stored only while nobody saved since.
      const previous = known !== undefined && row?.save_id === known.saveId ? known : undefined;
      const columns = new Map<string, ListColumns>();
      const same = new Map<string, number>();
      for (const list of STORED_LISTS) {
        const had =
          row === undefined || stored === 0
            ? undefined
            : listColumns(row as unknown as Record<string, unknown>, list);
        const result = await writeList(
          client,
          s,
          snapshot.id,
          list,
          had,
          parts.lists.get(list.name),
          previous?.lists.get(list.name),
          (items) => messageTexts(snapshot.id, items),
        );
        columns.set(list.name, result.columns);
        same.set(list.name, result.same);
      }
      const timeline = columns.get('timeline')!;
      const signatures = columns.get('signatures')!;
      await client.query(
        `update ${s}.sessions set revision = $2, saved_at = $3, label = $4, status = $5,
           format_version = $6, head = $7, has_timeline = $8, timeline_start = $9,
           timeline_count = $10, timeline_tail = $11, has_signatures = $12,
           signatures_start = $13, signatures_count = $14, signatures_tail = $15, save_id = $16
         where id = $1`,
        [
          snapshot.id,
          stored + 1,
          snapshot.savedAt,
          snapshot.label ?? null,
          parts.status,
          snapshot.version,
          parts.head,
          timeline.has,
          timeline.start,
          timeline.count,
          timeline.tail,
          signatures.has,
          signatures.start,
          signatures.count,
          signatures.tail,
          saveId,
        ],
      );
      // Delivered at commit only, so a listener never hears of a decision that rolled back.
      if (saveOptions?.decision === true) {
        await client.query('select pg_notify($1, $2)', [DECISION_CHANNEL, snapshot.id]);
      }
      return same;
    };
    // Kept for the next save only while the session runs (saved every tick), and only lists
    // that cannot change under the store: frozen, of items createSnapshot checked (settled).
    const committed = (written: Map<string, number>) => {
      if (parts.status === 'running') {
        saved.keep(snapshot.id, saveId, parts.lists, written, isSettledJson);
      }
    };
    return { run, committed };
  };

  return {
    schema,
    migrate,

    async close() {
      saved.clear();
      if (owned) await pool.end();
    },

    async save(snapshot: SessionSnapshot, saveOptions?: SaveOptions) {
      const write = prepareSave(snapshot, saveOptions);
      const written = await transaction(`save session "${snapshot.id}"`, write.run);
      write.committed(written);
    },

    async transact<T>(work: (tx: PostgresTransaction) => Promise<T>): Promise<T> {
      await whenReady().catch((error: unknown) => {
        throw storeError('transaction', error);
      });
      const commits: Array<() => void> = [];
      // What `work` throws reaches the caller as it is (a durable engine's own errors).
      const result = await inTransaction(
        pool,
        (client) =>
          work({
            client,
            async save(snapshot, saveOptions) {
              const write = prepareSave(snapshot, saveOptions);
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

    async load(id) {
      assertValidSessionId(id);
      // One statement, so the session row and its messages are read from one snapshot.
      const { rows } = await query<SessionRow & ListTexts>(
        `load session "${id}"`,
        `select s.*, (select array_agg(t.message order by t.seq) from ${s}.timeline t
            where t.session_id = s.id and t.seq >= s.timeline_start
              and t.seq < s.timeline_start + s.timeline_count) as timeline_items,
          (select array_agg(g.signature order by g.seq) from ${s}.signatures g
            where g.session_id = s.id and g.seq >= s.signatures_start
              and g.seq < s.signatures_start + s.signatures_count) as signatures_items
         from ${s}.sessions s where s.id = $1 and s.revision > 0`,
        [id],
      );
      const row = rows[0];
      return row === undefined ? undefined : joinSnapshot(row, schema);
    },

    async list(listOptions?: ListOptions) {
      const where: string[] = ['revision > 0'];
      const values: unknown[] = [];
      if (listOptions?.after !== undefined) {
        values.push(listOptions.after);
        where.push(`id > $${values.length}`);
      }
      if (listOptions?.status !== undefined) {
        values.push(listOptions.status);
        where.push(`status = $${values.length}`);
      }
      let limit = '';
      if (listOptions?.limit !== undefined) {
        if (!Number.isSafeInteger(listOptions.limit) || listOptions.limit < 1) {
          throw new SnapshotError(
            `list({ limit }) must be a whole number >= 1, got ${String(listOptions.limit)}.`,
          );
        }
        values.push(listOptions.limit);
        limit = ` limit $${values.length}`;
      }
      // With options: pages by id (a stable cursor); without: oldest save first, as every store.
      const order = listOptions === undefined ? 'saved_at, id' : 'id';
      const { rows } = await query<SessionRow>(
        'list sessions',
        `select id, revision, saved_at, label, status from ${s}.sessions
         where ${where.join(' and ')} order by ${order}${limit}`,
        values,
      );
      return rows.map(
        (r): SessionSummary => ({
          id: r.id,
          savedAt: r.saved_at.toISOString(),
          ...(r.label === null ? {} : { label: r.label }),
          ...(r.status === null ? {} : { status: r.status }),
          revision: Number(r.revision),
        }),
      );
    },

    async delete(id) {
      assertValidSessionId(id);
      saved.take(id);
      return transaction(`delete session "${id}"`, async (client) => {
        const gone = await client.query(
          `delete from ${s}.sessions where id = $1 and revision > 0`,
          [id],
        );
        await client.query(`delete from ${s}.restore_points where session_id = $1`, [id]);
        await client.query(`delete from ${s}.ticks where session_id = $1`, [id]);
        return (gone.rowCount ?? 0) > 0;
      });
    },

    async saveRestorePoint(sessionId, tick, snapshot) {
      assertRestorePoint(sessionId, tick, snapshot);
      const text = serializeSnapshot(snapshot);
      await query(
        `save restore point ${restorePointRef(sessionId, tick)}`,
        `insert into ${s}.restore_points (session_id, tick, saved_at, label, snapshot)
         values ($1, $2, $3, $4, $5)
         on conflict (session_id, tick) do update set saved_at = excluded.saved_at,
           label = excluded.label, snapshot = excluded.snapshot`,
        [sessionId, tick, snapshot.savedAt, snapshot.label ?? null, text],
      );
    },

    async loadRestorePoint(sessionId, tick) {
      assertRestorePoint(sessionId, tick);
      const ref = restorePointRef(sessionId, tick);
      const { rows } = await query<{ snapshot: string }>(
        `load restore point ${ref}`,
        `select snapshot from ${s}.restore_points where session_id = $1 and tick = $2`,
        [sessionId, tick],
      );
      const text = rows[0]?.snapshot;
      return text === undefined ? undefined : parseSnapshot(text, `postgres:${schema}/${ref}`);
    },

    async listRestorePoints(sessionId) {
      const { rows } = await query<{
        session_id: string;
        tick: number;
        saved_at: Date;
        label: string | null;
      }>(
        'list restore points',
        `select session_id, tick, saved_at, label from ${s}.restore_points
         ${sessionId === undefined ? '' : 'where session_id = $1'} order by session_id, tick`,
        sessionId === undefined ? [] : [sessionId],
      );
      return rows.map(
        (r): RestorePointSummary => ({
          sessionId: r.session_id,
          tick: r.tick,
          ref: restorePointRef(r.session_id, r.tick),
          savedAt: r.saved_at.toISOString(),
          ...(r.label === null ? {} : { label: r.label }),
        }),
      );
    },

    async appendTicks(sessionId, records, replace) {
      assertValidSessionId(sessionId);
      const texts = records.map((r) => JSON.stringify(r));
      const insert = `insert into ${s}.ticks (session_id, record) select $1, u.r from unnest($2::text[]) with ordinality as u(r, i) order by u.i`;
      if (!replace) {
        await query(`append ticks of "${sessionId}"`, insert, [sessionId, texts]);
        return;
      }
      await transaction(`replace ticks of "${sessionId}"`, async (client) => {
        await client.query(`delete from ${s}.ticks where session_id = $1`, [sessionId]);
        await client.query(insert, [sessionId, texts]);
      });
    },

    async loadTicks(sessionId) {
      assertValidSessionId(sessionId);
      const { rows } = await query<{ record: string }>(
        `load ticks of "${sessionId}"`,
        `select record from ${s}.ticks where session_id = $1 order by n`,
        [sessionId],
      );
      return rows.map((r) => JSON.parse(r.record) as TickRecord);
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

async function lockRow(
  client: pg.PoolClient,
  s: string,
  id: string,
): Promise<SessionRow | undefined> {
  const { rows } = await client.query<SessionRow>(
    `select revision, has_timeline, timeline_start, timeline_count, timeline_tail,
       has_signatures, signatures_start, signatures_count, signatures_tail, save_id
     from ${s}.sessions where id = $1 for update`,
    [id],
  );
  return rows[0];
}

interface SnapshotParts {
  /** The state as JSON with its stored lists emptied (their keys kept in place). */
  head: string;
  /** Each stored list the state has (an array), by name. */
  lists: Map<string, readonly unknown[]>;
  status: string | null;
}

/**
 * Splits a snapshot into the session row's head and its lists kept as rows. Checked like
 * every store checks a snapshot (`serializeSnapshot`), but only the head: the lists' old items
 * were checked when they were saved, and the new ones are checked in `messageTexts`.
 */
function splitSnapshot(snapshot: SessionSnapshot): SnapshotParts {
  const lists = new Map<string, readonly unknown[]>();
  let headState = snapshot.state;
  for (const list of STORED_LISTS) {
    const items = list.read(headState);
    if (items === undefined) continue;
    lists.set(list.name, items);
    headState = list.emptied(headState as Record<string, unknown>);
  }
  serializeSnapshot({ ...snapshot, state: headState });
  const status = (snapshot.state as { status?: unknown } | null)?.status;
  return {
    head: JSON.stringify(headState),
    lists,
    status: typeof status === 'string' ? status : null,
  };
}

/** The new messages as JSON text, each checked to be plain JSON first. */
function messageTexts(sessionId: string, messages: readonly unknown[]): string[] {
  if (messages.length === 0) return [];
  serializeSnapshot({
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    id: sessionId,
    savedAt: new Date().toISOString(),
    state: { timeline: messages },
  });
  return messages.map((m) => JSON.stringify(m));
}

/** The stored lists' items as JSON text, read with the session row. */
interface ListTexts {
  timeline_items: string[] | null;
  signatures_items: string[] | null;
}

function damaged(where: string, error: unknown): SnapshotError {
  return new SnapshotError(
    `Session snapshot ${where} is damaged: ${(error as Error).message}. Restore it from a backup, or delete it to start the session afresh.`,
    { path: where, cause: error },
  );
}

function joinSnapshot(row: SessionRow & ListTexts, schema: string): SessionSnapshot {
  const where = `postgres:${schema}/${row.id}`;
  let state: unknown;
  try {
    state = JSON.parse(row.head);
  } catch (error) {
    throw damaged(where, error);
  }
  // An older layout is brought to this one before the lists go back in at their current places.
  state = migrateState(state, row.format_version, where);
  try {
    for (const list of STORED_LISTS) {
      const columns = listColumns(row as unknown as Record<string, unknown>, list);
      if (!columns.has) continue;
      const texts = row[`${list.name}_items`] ?? [];
      if (texts.length !== columns.count) {
        throw new Error(
          `its ${list.name} has ${texts.length} of ${columns.count} rows (rows were deleted by hand?)`,
        );
      }
      if (list.read(state) === undefined) throw new Error(`its head has no ${list.name}`);
      // Assigned to the existing key, so the state's key order is what was saved.
      list.restore(
        state as Record<string, unknown>,
        texts.map((m) => JSON.parse(m) as unknown),
      );
    }
  } catch (error) {
    throw damaged(where, error);
  }
  return {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    id: row.id,
    savedAt: row.saved_at.toISOString(),
    ...(row.label === null ? {} : { label: row.label }),
    revision: Number(row.revision),
    state,
  };
}

/**
 * A driver error as a `SnapshotError` (the store step of a run), saying what was being done;
 * for a lost connection, that a save may or may not have committed.
 */
function storeError(what: string, error: unknown): SnapshotError {
  if (SnapshotError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  const hint = isConnectionError(error)
    ? what.startsWith('save')
      ? ' The connection to PostgreSQL was lost; the save may or may not have committed: load the session to see which revision is stored, then save again.'
      : ' The connection to PostgreSQL was lost; try again once the server is back.'
    : '';
  return new SnapshotError(`Could not ${what} in PostgreSQL: ${message}.${hint}`, { cause: error });
}
