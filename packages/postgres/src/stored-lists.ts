import { createHash } from 'node:crypto';
import { settledOrigin } from '@agate/core/stores';
import type pg from 'pg';
import {
  planByIdentity,
  planTimeline,
  type StoredWindow,
  type TimelinePlan,
  tailOf,
} from './timeline-plan.js';

type State = Record<string, unknown>;

/**
 * A list in a session state kept as rows, one per item, instead of inside the session row:
 * the lists that grow with a session, so a save writes what a tick added to them.
 */
export interface StoredList {
  /** Its columns in the sessions row: `has_<name>`, `<name>_start`, `_count`, `_tail`. */
  name: 'timeline' | 'signatures';
  /** The table of its rows, and the column holding an item's JSON. */
  table: string;
  column: string;
  /** The list in `state`, when the state has one (an array). */
  read(state: unknown): readonly unknown[] | undefined;
  /** `state` with the list emptied, its key kept in place (only called when `read` found it). */
  emptied(state: State): State;
  /** Puts the stored items back into a head read from the session row. */
  restore(head: State, items: unknown[]): void;
}

const isRecord = (value: unknown): value is State =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const timeline: StoredList = {
  name: 'timeline',
  table: 'timeline',
  column: 'message',
  read: (state) => (isRecord(state) && Array.isArray(state.timeline) ? state.timeline : undefined),
  emptied: (state) => ({ ...state, timeline: [] }),
  restore: (head, items) => {
    head.timeline = items;
  },
};

/** The ContinueGate's slice of a state (`state.guards.continue`), when it is an object. */
function progressOf(state: unknown): State | undefined {
  if (!isRecord(state) || !isRecord(state.guards)) return undefined;
  const progress = state.guards.continue;
  return isRecord(progress) ? progress : undefined;
}

/** The ContinueGate's `guards.continue.callSignatures` (up to 2,000 tool inputs as text). */
const signatures: StoredList = {
  name: 'signatures',
  table: 'signatures',
  column: 'signature',
  read: (state) => {
    const list = progressOf(state)?.callSignatures;
    return Array.isArray(list) ? list : undefined;
  },
  emptied: (state) => {
    const guards = state.guards as State;
    return {
      ...state,
      guards: { ...guards, continue: { ...(guards.continue as State), callSignatures: [] } },
    };
  },
  restore: (head, items) => {
    (progressOf(head) as State).callSignatures = items;
  },
};

export const STORED_LISTS: readonly StoredList[] = [timeline, signatures];

/** A list's columns in the session row, as read under its lock. */
export interface ListColumns {
  has: boolean;
  start: number;
  count: number;
  tail: string;
}

export function listColumns(row: Record<string, unknown>, list: StoredList): ListColumns {
  return {
    has: row[`has_${list.name}`] === true,
    start: Number(row[`${list.name}_start`] ?? 0),
    count: Number(row[`${list.name}_count`] ?? 0),
    tail: String(row[`${list.name}_tail`] ?? '[]'),
  };
}

export interface WrittenList {
  columns: ListColumns;
  /** How many leading items are the very ones of `previous` (found by identity). */
  same: number;
  /** The rows to write, by the save's one statement (`listWriteSql`). */
  write: ListWrite;
}

/**
 * A list's rows to write: those numbered below `dropBefore` deleted (0: none), then `fresh`
 * inserted from sequence number `first` on. The save sends every list's write and the session
 * row's update as one statement: one round trip for the whole save.
 */
export interface ListWrite {
  dropBefore: number;
  first: number;
  fresh: string[];
}

/**
 * The SQL of a list's write, as common table expressions of the save's statement. `at`: the
 * parameter number of its `dropBefore` (then `first`, then `fresh`); `$1` is the session id.
 * The rows deleted and those inserted never share a sequence number, so the one snapshot both
 * parts see is enough.
 */
export function listWriteSql(s: string, list: StoredList, at: number): string {
  const table = `${s}.${list.table}`;
  return `${list.name}_dropped as (delete from ${table} where session_id = $1 and seq < $${at}),
    ${list.name}_added as (insert into ${table} (session_id, seq, ${list.column})
      select $1, $${at + 1}::bigint + u.i - 1, u.m from unnest($${at + 2}::text[]) with ordinality as u(m, i))`;
}

/** A list write's parameters, in `listWriteSql`'s order. */
export function listWriteValues(write: ListWrite): unknown[] {
  return [write.dropBefore, write.first, write.fresh];
}

/**
 * Plans writing `items` as the list's rows over what is stored (`stored`, read under the
 * session row's lock): the list's new columns and the rows to write. `previous`: the list this
 * store wrote in the stored save, when it is known to be that (then the plan is found by
 * identity, serializing only the new items). Otherwise a candidate from the stored tail is
 * checked against a digest of the stored rows, computed by the server: an edit anywhere in the
 * kept part means a rewrite. `texts`: how items become checked JSON text.
 */
export async function planListWrite(
  client: pg.PoolClient,
  s: string,
  sessionId: string,
  list: StoredList,
  stored: ListColumns | undefined,
  items: readonly unknown[] | undefined,
  previous: readonly unknown[] | undefined,
  texts: (items: readonly unknown[]) => string[],
): Promise<WrittenList> {
  const table = `${s}.${list.table}`;
  // Numbered on from the old window, so no sequence number is ever reused.
  const after = stored === undefined ? 0 : stored.start + stored.count;
  if (items === undefined) {
    // Every stored row is numbered below `after`.
    const dropBefore = stored?.has === true || (stored?.count ?? 0) > 0 ? after : 0;
    return {
      columns: { has: false, start: after, count: 0, tail: '[]' },
      same: 0,
      write: { dropBefore, first: after, fresh: [] },
    };
  }
  const window = stored?.has === true ? stored : undefined;
  let plan: TimelinePlan | undefined;
  if (window !== undefined && previous !== undefined && previous.length === window.count) {
    // createSnapshot already compared a timeline with the one before: when that is the one
    // written last and it went on from all of it, nothing needs comparing again.
    const origin = settledOrigin(items);
    plan =
      origin !== undefined &&
      origin.items === previous &&
      origin.at + origin.same === previous.length
        ? { kind: 'append', drop: origin.at, from: origin.same }
        : planByIdentity(previous, items);
  }
  const same = plan?.kind === 'append' ? plan.from : 0;
  plan ??= await checkedTextPlan(client, table, list.column, sessionId, window, items);
  let start: number;
  let from: number;
  /** Rows before this sequence number go (all of them: no sequence number is that high). */
  let dropBefore = 0;
  if (plan.kind === 'append' && window !== undefined) {
    start = window.start + plan.drop;
    from = plan.from;
    if (plan.drop > 0) dropBefore = start;
  } else {
    if (stored !== undefined && (stored.has || stored.count > 0)) dropBefore = after;
    start = after;
    from = 0;
  }
  return {
    columns: { has: true, start, count: items.length, tail: tailOf(items) },
    same,
    write: { dropBefore, first: start + from, fresh: texts(items.slice(from)) },
  };
}

/**
 * Where `items` goes on from the stored window, found by its tail (the last few stored items)
 * and then checked whole: the server's digest of the kept rows must equal the digest of the
 * same items here. Serializes every kept item (a store that did not make the stored save has
 * nothing better), but writes only the new ones.
 */
async function checkedTextPlan(
  client: pg.PoolClient,
  table: string,
  column: string,
  sessionId: string,
  window: StoredWindow | undefined,
  items: readonly unknown[],
): Promise<TimelinePlan> {
  const plan = planTimeline(window, items);
  if (plan.kind === 'rewrite' || window === undefined || plan.from === 0) return plan;
  // JSON text has no raw newline, so joining by one is unambiguous.
  const local = createHash('sha256')
    .update(
      items
        .slice(0, plan.from)
        .map((item) => JSON.stringify(item))
        .join('\n'),
    )
    .digest('hex');
  const { rows } = await client.query<{ digest: string | null; n: string }>(
    `select encode(sha256(convert_to(string_agg(${column}, E'\\n' order by seq), 'UTF8')), 'hex') as digest,
       count(*) as n
     from ${table} where session_id = $1 and seq >= $2 and seq < $3`,
    [sessionId, window.start + plan.drop, window.start + window.count],
  );
  const found = rows[0];
  return found?.digest === local && Number(found.n) === plan.from ? plan : { kind: 'rewrite' };
}
