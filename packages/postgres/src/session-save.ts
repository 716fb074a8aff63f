import { randomUUID } from 'node:crypto';
import { type SessionSnapshot, SnapshotError, StaleSessionError } from '@agate/core';
import {
  isSettledJson,
  type SaveOptions,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  serializeSnapshot,
} from '@agate/core/stores';
import type pg from 'pg';
import { prepared } from './prepared.js';
import type { SavedLists } from './saved-lists.js';
import type { SessionRow } from './session-rows.js';
import type { StoreDb } from './store-db.js';
import {
  type ListColumns,
  listColumns,
  listWriteSql,
  listWriteValues,
  planListWrite,
  STORED_LISTS,
} from './stored-lists.js';

/**
 * The channel a save that records a person's decision (`SaveOptions.decision`) notifies, with
 * the session id as payload: `@agate/dbos` workers listen on it to wake the run that waits.
 */
export const DECISION_CHANNEL = 'agate_decision';

/** A save made ready: `run` writes it on a transaction's connection; `committed` after commit. */
export interface PreparedSave {
  run(client: pg.PoolClient): Promise<Map<string, number>>;
  /** Keeps what `run` wrote for the next save's diff, once its transaction has committed. */
  committed(written: Map<string, number>): void;
}

/**
 * One save of `snapshot`: the row locked, the revision compared, each stored list's new items
 * inserted (only what the last save of this store did not write), the session row updated.
 */
export function prepareSave(
  db: StoreDb,
  saved: SavedLists,
  snapshot: SessionSnapshot,
  saveOptions?: SaveOptions,
): PreparedSave {
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
    let row = await lockRow(client, db.s, snapshot.id);
    if (row === undefined) {
      // A placeholder (revision 0), visible to nobody until commit. Two first saves at
      // once: the second waits here on the unique id until the first ends.
      await client.query(
        `insert into ${db.s}.sessions (id, revision) values ($1, 0) on conflict (id) do nothing`,
        [snapshot.id],
      );
      row = await lockRow(client, db.s, snapshot.id);
    }
    const stored = Number(row?.revision ?? 0);
    if (expected !== undefined && expected !== stored) {
      throw new StaleSessionError(snapshot.id, expected, stored);
    }
    // What this store wrote is what is stored only while nobody saved since.
    const previous = known !== undefined && row?.save_id === known.saveId ? known : undefined;
    const columns = new Map<string, ListColumns>();
    const same = new Map<string, number>();
    const writes: unknown[] = [];
    for (const list of STORED_LISTS) {
      const had =
        row === undefined || stored === 0
          ? undefined
          : listColumns(row as unknown as Record<string, unknown>, list);
      const result = await planListWrite(
        client,
        db.s,
        snapshot.id,
        list,
        had,
        parts.lists.get(list.name),
        previous?.lists.get(list.name),
        (items) => messageTexts(snapshot.id, items),
      );
      columns.set(list.name, result.columns);
      same.set(list.name, result.same);
      writes.push(...listWriteValues(result.write));
    }
    const timeline = columns.get('timeline')!;
    const signatures = columns.get('signatures')!;
    // The lists' rows and the session row in one statement: one round trip per save.
    await client.query(
      prepared(saveSql(db.s), [
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
        ...writes,
      ]),
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
}

/** The session row's update after every stored list's write (parameters from $17 on). */
function saveSql(s: string): string {
  const lists = STORED_LISTS.map((list, i) => listWriteSql(s, list, 17 + 3 * i));
  return `with ${lists.join(',\n  ')}
    update ${s}.sessions set revision = $2, saved_at = $3, label = $4, status = $5,
      format_version = $6, head = $7, has_timeline = $8, timeline_start = $9,
      timeline_count = $10, timeline_tail = $11, has_signatures = $12,
      signatures_start = $13, signatures_count = $14, signatures_tail = $15, save_id = $16
    where id = $1`;
}

async function lockRow(
  client: pg.PoolClient,
  s: string,
  id: string,
): Promise<SessionRow | undefined> {
  const { rows } = await client.query<SessionRow>(
    prepared(
      `select revision, has_timeline, timeline_start, timeline_count, timeline_tail,
       has_signatures, signatures_start, signatures_count, signatures_tail, save_id
     from ${s}.sessions where id = $1 for update`,
      [id],
    ),
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
