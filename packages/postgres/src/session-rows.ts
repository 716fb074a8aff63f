import type { SessionSnapshot } from '@agate/core';
import { SnapshotError } from '@agate/core';
import {
  assertValidSessionId,
  type ListOptions,
  migrateState,
  type SessionSummary,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
} from '@agate/core/stores';
import type { StoreDb } from './store-db.js';
import { listColumns, STORED_LISTS } from './stored-lists.js';

/** A `sessions` row as selected. */
export interface SessionRow {
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

/** The stored lists' items as JSON text, read with the session row. */
interface ListTexts {
  timeline_items: string[] | null;
  signatures_items: string[] | null;
}

/** `SessionStore.load`: the session row and its listed items, from one statement's snapshot. */
export async function loadSession(db: StoreDb, id: string): Promise<SessionSnapshot | undefined> {
  assertValidSessionId(id);
  // One statement, so the session row and its messages are read from one snapshot.
  const { rows } = await db.query<SessionRow & ListTexts>(
    `load session "${id}"`,
    `select s.*, (select array_agg(t.message order by t.seq) from ${db.s}.timeline t
        where t.session_id = s.id and t.seq >= s.timeline_start
          and t.seq < s.timeline_start + s.timeline_count) as timeline_items,
      (select array_agg(g.signature order by g.seq) from ${db.s}.signatures g
        where g.session_id = s.id and g.seq >= s.signatures_start
          and g.seq < s.signatures_start + s.signatures_count) as signatures_items
     from ${db.s}.sessions s where s.id = $1 and s.revision > 0`,
    [id],
  );
  const row = rows[0];
  return row === undefined ? undefined : joinSnapshot(row, db.schema);
}

/** `SessionStore.list`: pages by id with options; oldest save first without. */
export async function listSessions(
  db: StoreDb,
  listOptions?: ListOptions,
): Promise<SessionSummary[]> {
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
  const { rows } = await db.query<SessionRow>(
    'list sessions',
    `select id, revision, saved_at, label, status from ${db.s}.sessions
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
