import { createHash } from 'node:crypto';
import { settledOrigin } from '@agate/core/stores';
import type pg from 'pg';
import { prepared } from './prepared.js';
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
}

/**
 * Writes `items` as the list's rows over what is stored (`stored`, read under the session row's
 * lock) and returns the list's new columns. `previous`: the list this store wrote in the stored
 * save, when it is known to be that (then the plan is found by identity, serializing only the
 * new items). Otherwise a candidate from the stored tail is checked against a digest of the
 * stored rows, computed by the server: an edit anywhere in the kept part means a rewrite.
 * `texts`: how items become checked JSON text.
 */
export async function writeList(
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
    if (stored?.has === true || (stored?.count ?? 0) > 0) {
      await client.query(`delete from ${table} where session_id = $1`, [sessionId]);
    }
    return { columns: { has: false, start: after, count: 0, tail: '[]' }, same: 0 };
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
  let dropBefore: number | undefined;
  if (plan.kind === 'append' && window !== undefined) {
    start = window.start + plan.drop;
    from = plan.from;
    if (plan.drop > 0) dropBefore = start;
  } else {
    if (stored !== undefined && (stored.has || stored.count > 0)) dropBefore = after;
    start = after;
    from = 0;
  }
  const fresh = texts(items.slice(from));
  if (fresh.length > 0) {
    // The drop and the insert in one statement: one round trip for a trimmed list too.
    await client.query(
      prepared(
        `with dropped as (delete from ${table} where session_id = $1 and seq < $4)
       insert into ${table} (session_id, seq, ${list.column})
       select $1, $2::bigint + u.i - 1, u.m from unnest($3::text[]) with ordinality as u(m, i)`,
        [sessionId, start + from, fresh, dropBefore ?? 0],
      ),
    );
  } else if (dropBefore !== undefined) {
    await client.query(`delete from ${table} where session_id = $1 and seq < $2`, [
      sessionId,
      dropBefore,
    ]);
  }
  return { columns: { has: true, start, count: items.length, tail: tailOf(items) }, same };
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
