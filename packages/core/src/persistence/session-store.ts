import type { TickRecord } from '../tick-log/tick-record.js';
import { SnapshotError, StaleSessionError } from './persistence-errors.js';
import {
  assertValidSessionId,
  isValidSessionId,
  parseSnapshot,
  type SessionSnapshot,
  serializeSnapshot,
} from './snapshot.js';

/** One stored session as a store lists it, without its state. */
export interface SessionSummary {
  /** The session's id. */
  id: string;
  /** When it was saved (ISO 8601). */
  savedAt: string;
  /** The label it was saved with. */
  label?: string;
  /** The session's status when it was saved (`running`, `completed`, ...), where the store knows it. */
  status?: string;
  /** The stored revision, where the store keeps revisions. */
  revision?: number;
}

/** Options of `SessionStore.save`. */
export interface SaveOptions {
  /**
   * Save only if the stored revision is this one (the `revision` of the snapshot `load`
   * returned; 0: only if no session with that id is stored). Otherwise nothing is written and
   * the save throws `StaleSessionError`. The compare and the write are one atomic step, also
   * across processes. On success the stored revision is `expectedRevision + 1`.
   * Without it the save is unconditional (last write wins) and still counts a revision.
   */
  expectedRevision?: number;
  /**
   * This save records a person's decision (a checkpoint approved or rejected, a tool call
   * approved or denied). A store that serves durable runs uses it to wake the run waiting for
   * that decision at once (the PostgreSQL store notifies, in the save's own transaction, the
   * `@agate/dbos` workers listening); other stores ignore it.
   */
  decision?: boolean;
}

/** `list({ limit, after, status })`: one page of sessions. Stores may ignore it (all in one page). */
export interface ListOptions {
  /** At most this many. */
  limit?: number;
  /** The `id` of the last session of the previous page: the page starts after it. */
  after?: string;
  /** Only sessions saved with this status. */
  status?: string;
}

/** A restore point: a session as it was at the end of one tick (a ContinueGate checkpoint). */
export interface RestorePointSummary {
  /** The session it belongs to. */
  sessionId: string;
  /** The tick it was saved at the end of. */
  tick: number;
  /** `<session>@tick-<n>`: how the CLI and docs name it; never a valid session id. */
  ref: string;
  /** When it was saved (ISO 8601). */
  savedAt: string;
  /** The label it was saved with. */
  label?: string;
}

/**
 * Where sessions are kept between runs. One snapshot per id; saving again replaces it.
 *
 * Revisions: a store that keeps them returns each snapshot from `load` with a `revision` that
 * grows by one on every save, and honours `save(snapshot, { expectedRevision })` (throwing
 * `StaleSessionError` when another revision is stored). A store written before revisions
 * existed (its `load` sets no `revision`, its `save` ignores the options) keeps working:
 * every save then simply replaces what is stored (last write wins).
 */
export interface SessionStore {
  /** Stores the snapshot under its id, replacing what was there (see revisions above). */
  save(snapshot: SessionSnapshot, options?: SaveOptions): Promise<void>;
  /** `undefined` when no session has that id. */
  load(id: string): Promise<SessionSnapshot | undefined>;
  /**
   * Oldest save first. With `options`, a page of them ordered by id (see `ListOptions`);
   * a store that ignores the options returns every session.
   */
  list(options?: ListOptions): Promise<SessionSummary[]>;
  /**
   * Removes the session with its restore points and tick log; true when it was stored.
   * Optional for stores written before it existed.
   */
  delete?(id: string): Promise<boolean>;
  /**
   * Restore points live in their own key space, apart from session ids, so that no restore
   * point can overwrite a session (or a session one). Optional for stores written before they
   * existed: a session on such a store saves no restore points and says so once (a warning).
   */
  saveRestorePoint?(sessionId: string, tick: number, snapshot: SessionSnapshot): Promise<void>;
  /** The session as it was at the end of `tick`, if the store kept a restore point there. */
  loadRestorePoint?(sessionId: string, tick: number): Promise<SessionSnapshot | undefined>;
  /** Oldest save first; only `sessionId`'s when given. */
  listRestorePoints?(sessionId?: string): Promise<RestorePointSummary[]>;
  /**
   * A session's tick log (`SessionOptions.tickLog`), kept beside it: `appendTicks` adds records
   * (`replace`: the records are the whole log, after the oldest were dropped). Optional.
   */
  appendTicks?(sessionId: string, records: TickRecord[], replace?: boolean): Promise<void>;
  /** Oldest first; empty when the session kept none. */
  loadTicks?(sessionId: string): Promise<TickRecord[]>;
}

const RESTORE_POINT_REF = /^(.+)@tick-(\d+)$/;

/** `job@tick-2`: the name of session `job`'s restore point at tick 2. */
export function restorePointRef(sessionId: string, tick: number): string {
  return `${sessionId}@tick-${tick}`;
}

/** The session id and tick a restore point name refers to, or undefined for any other text. */
export function parseRestorePointRef(ref: string): { sessionId: string; tick: number } | undefined {
  const match = RESTORE_POINT_REF.exec(ref);
  if (match === null) return undefined;
  const tick = Number(match[2]);
  if (!isValidSessionId(match[1]) || !Number.isSafeInteger(tick)) return undefined;
  return { sessionId: match[1] as string, tick };
}

/** Checks a restore point's key and that its snapshot is of that session. */
export function assertRestorePoint(
  sessionId: string,
  tick: number,
  snapshot?: SessionSnapshot,
): void {
  assertValidSessionId(sessionId);
  if (!Number.isSafeInteger(tick) || tick < 0) {
    throw new SnapshotError(
      `A restore point's tick must be a whole number >= 0, got ${String(tick)}.`,
    );
  }
  if (snapshot !== undefined && snapshot.id !== sessionId) {
    throw new SnapshotError(
      `A restore point of session "${sessionId}" must hold that session, not "${snapshot.id}".`,
    );
  }
}

export function summarizeRestorePoint(
  snapshot: SessionSnapshot,
  tick: number,
): RestorePointSummary {
  return {
    sessionId: snapshot.id,
    tick,
    ref: restorePointRef(snapshot.id, tick),
    savedAt: snapshot.savedAt,
    ...(snapshot.label === undefined ? {} : { label: snapshot.label }),
  };
}

/**
 * A store for tests and short-lived processes. It keeps JSON text rather than objects so it
 * behaves like the file store: what was saved cannot be changed through a reference, and
 * unserializable state fails at save time, not later in another process.
 */
export function createMemoryStore(): SessionStore {
  const texts = new Map<string, { text: string; revision: number }>();
  // Keyed by [session id, tick]: a key space of its own, so no restore point meets a session.
  const points = new Map<string, Map<number, string>>();
  const ticks = new Map<string, string[]>();
  return {
    async saveRestorePoint(sessionId, tick, snapshot) {
      assertRestorePoint(sessionId, tick, snapshot);
      const text = serializeSnapshot(snapshot);
      const mine = points.get(sessionId) ?? new Map<number, string>();
      mine.set(tick, text);
      points.set(sessionId, mine);
    },
    async loadRestorePoint(sessionId, tick) {
      assertRestorePoint(sessionId, tick);
      const text = points.get(sessionId)?.get(tick);
      return text === undefined
        ? undefined
        : parseSnapshot(text, `memory:${restorePointRef(sessionId, tick)}`);
    },
    async listRestorePoints(sessionId) {
      const found: RestorePointSummary[] = [];
      for (const [id, mine] of points) {
        if (sessionId !== undefined && id !== sessionId) continue;
        for (const [tick, text] of mine) {
          found.push(summarizeRestorePoint(parseSnapshot(text, `memory:${id}@tick-${tick}`), tick));
        }
      }
      return sortRestorePoints(found);
    },
    async appendTicks(sessionId, records, replace) {
      assertValidSessionId(sessionId);
      // Kept as JSON text, as a file store would: no reference to a live record leaks out.
      const kept = replace ? [] : (ticks.get(sessionId) ?? []);
      ticks.set(sessionId, [...kept, ...records.map((r) => JSON.stringify(r))]);
    },
    async loadTicks(sessionId) {
      assertValidSessionId(sessionId);
      return (ticks.get(sessionId) ?? []).map((text) => JSON.parse(text) as TickRecord);
    },
    async save(snapshot, options) {
      const text = serializeSnapshot(snapshot);
      // Synchronous from the compare to the write: no other save can come in between.
      const stored = texts.get(snapshot.id)?.revision ?? 0;
      checkRevision(snapshot.id, options, stored);
      texts.set(snapshot.id, { text, revision: stored + 1 });
    },
    async load(id) {
      assertValidSessionId(id);
      const stored = texts.get(id);
      return stored === undefined
        ? undefined
        : { ...parseSnapshot(stored.text, `memory:${id}`), revision: stored.revision };
    },
    async list(options) {
      const all = [...texts].map(([id, { text, revision }]) => ({
        ...summarize(parseSnapshot(text, `memory:${id}`)),
        revision,
      }));
      return options === undefined ? sortSummaries(all) : pageSummaries(all, options);
    },
    async delete(id) {
      assertValidSessionId(id);
      points.delete(id);
      ticks.delete(id);
      return texts.delete(id);
    },
  };
}

export function summarize(snapshot: SessionSnapshot): SessionSummary {
  const status = (snapshot.state as { status?: unknown } | null)?.status;
  return {
    id: snapshot.id,
    savedAt: snapshot.savedAt,
    ...(snapshot.label === undefined ? {} : { label: snapshot.label }),
    ...(typeof status === 'string' ? { status } : {}),
    ...(snapshot.revision === undefined ? {} : { revision: snapshot.revision }),
  };
}

/** Throws `StaleSessionError` when a conditional save meets another stored revision. */
export function checkRevision(
  sessionId: string,
  options: SaveOptions | undefined,
  stored: number,
): void {
  const expected = options?.expectedRevision;
  if (expected === undefined) return;
  if (!Number.isSafeInteger(expected) || expected < 0) {
    throw new SnapshotError(
      `expectedRevision must be a whole number >= 0 (the revision load() returned), got ${String(expected)}.`,
    );
  }
  if (expected !== stored) throw new StaleSessionError(sessionId, expected, stored);
}

/** `list(options)` for stores that hold every summary at hand: by id, after `after`, `limit` of them. */
export function pageSummaries(all: SessionSummary[], options: ListOptions): SessionSummary[] {
  const { limit, after, status } = options;
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1)) {
    throw new SnapshotError(`list({ limit }) must be a whole number >= 1, got ${String(limit)}.`);
  }
  const page = all
    .filter(
      (s) => (after === undefined || s.id > after) && (status === undefined || s.status === status),
    )
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return limit === undefined ? page : page.slice(0, limit);
}

/** By session, then tick. */
export function sortRestorePoints(points: RestorePointSummary[]): RestorePointSummary[] {
  return points.sort((a, b) =>
    a.sessionId === b.sessionId ? a.tick - b.tick : a.sessionId < b.sessionId ? -1 : 1,
  );
}

/** By save time, then id, so the order is stable when two saves share a timestamp. */
export function sortSummaries(summaries: SessionSummary[]): SessionSummary[] {
  return summaries.sort(
    (a, b) =>
      Date.parse(a.savedAt) - Date.parse(b.savedAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}
