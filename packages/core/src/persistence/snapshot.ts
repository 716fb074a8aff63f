import { errorMessage } from '../ground/thrown.js';
import { continuationOf } from '../state/continuations.js';
import { migrateState, SNAPSHOT_VERSION } from './migrate.js';
import { InvalidSessionIdError, SnapshotError } from './persistence-errors.js';

/** The `format` every snapshot carries, so a loader can tell a session file from other JSON. */
export const SNAPSHOT_FORMAT = 'agate.session';
/** Bumped whenever the snapshot layout changes incompatibly; older layouts are migrated on load. */
export { SNAPSHOT_VERSION };

/** A session's state at one moment, in the form stores write and read. */
export interface SessionSnapshot<S = unknown> {
  /** Always `SNAPSHOT_FORMAT`. */
  format: typeof SNAPSHOT_FORMAT;
  /** The layout's version (`SNAPSHOT_VERSION`); older ones are migrated on load. */
  version: number;
  /** The session's id. */
  id: string;
  /** ISO 8601. */
  savedAt: string;
  /** A label given when it was taken. */
  label?: string;
  /**
   * Set by a store's `load`: the stored revision, which grows by one on every save. Pass it
   * back as `save(snapshot, { expectedRevision })` to save only if nobody saved in between.
   * Stores written before revisions existed leave it unset (their saves: last write wins).
   */
  revision?: number;
  /** The session's state. */
  state: S;
}

const SESSION_ID = /^[A-Za-z0-9_.-]{1,128}$/;

/** Ids name files, so they are kept to a character set with no separators and no dot-files. */
export function isValidSessionId(id: unknown): id is string {
  return typeof id === 'string' && SESSION_ID.test(id) && !id.startsWith('.');
}

export function assertValidSessionId(id: unknown): asserts id is string {
  if (!isValidSessionId(id)) throw new InvalidSessionIdError(id);
}

export interface CreateSnapshotOptions {
  /**
   * Share the state's deep-frozen parts instead of copying them (they cannot change). A
   * session's state is frozen and shares all but what a tick changed with the state before, so
   * such a snapshot of tick 2,000 costs what the tick added, not the whole history, and a store
   * can compare what it saved last by identity (`isSettledJson`). Its frozen parts cannot be
   * edited: for saving, not for editing before a restore. Default false (a full copy).
   */
  shareFrozen?: boolean;
}

/**
 * Captures `state` as a snapshot. The state is deep-copied, so mutating it later cannot change
 * the snapshot, and it must be plain JSON, so a snapshot saved now loads identically later.
 * Object properties whose value is `undefined` are allowed (JSON drops the key, and reading it
 * back still gives `undefined`); optional fields are everywhere in session state. Deep-frozen
 * parts are checked once (they cannot change since); with `shareFrozen` they are not copied.
 */
export function createSnapshot<S>(
  id: string,
  state: S,
  label?: string,
  options?: CreateSnapshotOptions,
): SessionSnapshot<S> {
  assertValidSessionId(id);
  const checked = captureJson(state, 'state', new Map());
  return {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    id,
    savedAt: new Date().toISOString(),
    ...(label === undefined ? {} : { label }),
    state: (options?.shareFrozen === true ? checked : structuredClone(checked)) as S,
  };
}

/**
 * Deep-frozen plain-JSON objects and arrays `createSnapshot` already checked: everything under
 * them is frozen and checked too, so nothing there can change or be anything but JSON.
 */
const settled = new WeakSet<object>();

/**
 * True when `value` is a JSON primitive, or a deep-frozen plain-JSON object or array that
 * `createSnapshot` already checked: it cannot change, so a store may keep a reference to it
 * and later compare by identity instead of by content.
 */
export function isSettledJson(value: unknown): boolean {
  if (typeof value === 'object') return value === null || settled.has(value);
  return typeof value === 'string' || typeof value === 'boolean' || Number.isFinite(value);
}

/**
 * `value` checked to be plain JSON (a SnapshotError naming the first place where it is not) and
 * copied, except for deep-frozen parts, which are shared and remembered as settled.
 */
function captureJson(value: unknown, path: string, ancestors: Map<object, string>): unknown {
  if (typeof value !== 'object' || value === null) {
    const problem = findNonJson(value, path, ancestors);
    if (problem !== undefined) throw notJson(problem);
    return value;
  }
  if (settled.has(value)) return value;
  const problem = shapeProblem(value, path, ancestors);
  if (problem !== undefined) throw notJson(problem);
  ancestors.set(value, path);
  try {
    // Shared as is when frozen with no getters and every child shared (a frozen object with a
    // mutable child could still change under the snapshot); otherwise copied. A child comes
    // back as itself only when it is a primitive or settled.
    const frozen = Object.isFrozen(value);
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined = frozen ? undefined : new Array(value.length);
      // The items a settled array it goes on from has at the same places are settled too.
      const run = frozen ? settledPrefix(value) : undefined;
      const known = run?.same ?? 0;
      for (let i = known; i < value.length; i++) {
        const item: unknown = value[i];
        // The common case without building a path: a string, or a part checked before.
        let child = item;
        if (!isKnownJson(item)) {
          if (item === undefined && !(i in value)) {
            throw notJson(`${path}[${i}] is an empty array slot, which JSON turns into null`);
          }
          child = captureJson(item, `${path}[${i}]`, ancestors);
          if (child !== item && copy === undefined) copy = value.slice(0, i);
        }
        if (copy !== undefined) copy[i] = child;
      }
      if (copy !== undefined) return copy;
      if (run !== undefined && run.same > 0) {
        origins.set(value, { items: new WeakRef(run.items), at: run.at, same: run.same });
      }
      rememberRun(value);
    } else {
      const record = value as Record<string, unknown>;
      let copy: Record<string, unknown> | undefined = frozen ? undefined : {};
      const keys = Object.keys(record);
      for (const key of keys) {
        // A getter could answer differently each time: copied, never shared.
        if (copy === undefined && Object.getOwnPropertyDescriptor(record, key)?.get !== undefined) {
          copy = {};
          for (const before of keys) {
            if (before === key) break;
            copy[before] = record[before];
          }
        }
        const item = record[key];
        // See above: an undefined property is dropped by JSON, which reads back the same.
        let child = item;
        if (item !== undefined && !isKnownJson(item)) {
          child = captureJson(item, `${path}${keyPath(key)}`, ancestors);
          if (child !== item && copy === undefined) {
            copy = {};
            for (const before of keys) {
              if (before === key) break;
              copy[before] = record[before];
            }
          }
        }
        if (copy !== undefined) copy[key] = child;
      }
      if (copy !== undefined) return copy;
    }
    settled.add(value);
    return value;
  } finally {
    ancestors.delete(value);
  }
}

/** Settled arrays at least this long are remembered by their first items (`settledRuns`). */
const RUN_MIN_LENGTH = 32;
/** How many of a remembered array's first items find it: a list trimmed by fewer still does. */
const RUN_KEYS = 8;

/**
 * Long settled arrays (a session's timeline), each found by one of its first items: the next
 * tick's timeline is a new array holding the same items then a few more, or fewer at the front
 * after trimming. Comparing it with the one before by identity, item for item, is much cheaper
 * than a `settled` lookup per item, so a snapshot of tick 2,000 still costs what the tick added.
 */
const settledRuns = new WeakMap<object, { items: readonly unknown[]; at: number }>();

function rememberRun(items: readonly unknown[]): void {
  if (items.length < RUN_MIN_LENGTH) return;
  for (let at = 0; at < RUN_KEYS; at++) {
    const item = items[at];
    if (typeof item === 'object' && item !== null) settledRuns.set(item, { items, at });
  }
}

/** Which remembered settled array `items` goes on from, and for how many leading items. */
function settledPrefix(items: readonly unknown[]): SettledOrigin | undefined {
  // Noted by the code that built it (the tick): nothing to compare when that one is settled.
  const noted = continuationOf(items);
  if (noted !== undefined && settled.has(noted.previous)) {
    return { items: noted.previous, at: noted.at, same: noted.same };
  }
  const first = items[0];
  if (items.length < RUN_MIN_LENGTH || typeof first !== 'object' || first === null) return;
  const run = settledRuns.get(first);
  if (run === undefined) return;
  const end = Math.min(run.items.length - run.at, items.length);
  let same = 0;
  while (same < end && run.items[run.at + same] === items[same]) same++;
  return { items: run.items, at: run.at, same };
}

/**
 * Where a settled array came from, as `createSnapshot` found when it checked it: its first
 * `same` items are the very items of the settled array `items` from index `at` on.
 */
export interface SettledOrigin {
  items: readonly unknown[];
  at: number;
  same: number;
}

/** Held weakly: a chain of strong ones would keep every timeline a session ever had alive. */
const origins = new WeakMap<
  readonly unknown[],
  { items: WeakRef<readonly unknown[]>; at: number; same: number }
>();

/**
 * For a long settled array (a session's timeline in a snapshot `createSnapshot` shared), the
 * settled array it goes on from, when it found one still alive: a store that wrote and holds
 * that one knows what is new without comparing the two again. Undefined otherwise.
 */
export function settledOrigin(items: readonly unknown[]): SettledOrigin | undefined {
  const origin = origins.get(items);
  const from = origin?.items.deref();
  return origin === undefined || from === undefined
    ? undefined
    : { items: from, at: origin.at, same: origin.same };
}

/** A string, boolean or settled part: JSON with nothing left to check. */
function isKnownJson(value: unknown): boolean {
  return (
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'object' && value !== null && settled.has(value))
  );
}

function notJson(problem: string): SnapshotError {
  return new SnapshotError(`Session state is not JSON-serializable: ${problem}.`);
}

/**
 * The text stores write. Checks the snapshot again, since it may not come from `createSnapshot`.
 * `revision`: the store-assigned revision to write with it (the snapshot's own is ignored).
 */
export function serializeSnapshot(snapshot: SessionSnapshot, revision?: number): string {
  assertValidSessionId(snapshot.id);
  const problems = fieldProblems(snapshot as unknown as Record<string, unknown>);
  if (snapshot.format !== SNAPSHOT_FORMAT || snapshot.version !== SNAPSHOT_VERSION) {
    problems.push(`it must have format "${SNAPSHOT_FORMAT}" and version ${SNAPSHOT_VERSION}`);
  }
  if (problems.length > 0) {
    throw new SnapshotError(`Cannot save session "${snapshot.id}": ${problems.join('; ')}.`);
  }
  assertJson(snapshot.state);
  const { format, version, id, savedAt, label, state } = snapshot;
  // Fixed key order keeps files diffable.
  return `${JSON.stringify({ format, version, id, savedAt, label, revision, state }, null, 2)}\n`;
}

/** Reads snapshot text, refusing anything that is not a complete snapshot of this version. */
export function parseSnapshot(text: string, source?: string): SessionSnapshot {
  const where = source === undefined ? 'Session snapshot' : `Session snapshot ${source}`;
  const fail = (message: string, cause?: unknown): never => {
    throw new SnapshotError(`${where} ${message}`, {
      ...(source === undefined ? {} : { path: source }),
      cause,
    });
  };

  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return fail(
      `is truncated or corrupt: it is not valid JSON (${errorMessage(error)}). ` +
        'Restore it from a backup, or delete it to start the session afresh.',
      error,
    );
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return fail(`is not an Agate session snapshot: expected a JSON object, got ${kindOf(data)}.`);
  }
  const record = data as Record<string, unknown>;
  if (record.format !== SNAPSHOT_FORMAT) {
    const found = record.format === undefined ? 'missing' : JSON.stringify(record.format);
    return fail(
      `is not an Agate session snapshot: format is ${found}, expected "${SNAPSHOT_FORMAT}".`,
    );
  }
  if (typeof record.version !== 'number') {
    return fail('is missing its "version" number.');
  }
  // An older layout is brought to this one (a newer or unknown one is refused, naming both).
  const state = migrateState(record.state, record.version, source);
  const problems = fieldProblems(record);
  if (problems.length > 0) return fail(`is incomplete: ${problems.join('; ')}.`);

  return {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    id: record.id as string,
    savedAt: record.savedAt as string,
    ...(record.label === undefined ? {} : { label: record.label as string }),
    ...(isRevision(record.revision) ? { revision: record.revision } : {}),
    state,
  };
}

/** A store revision: a whole number >= 0. */
export function isRevision(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function fieldProblems(record: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (typeof record.id !== 'string') problems.push('field "id" is missing or not a string');
  else if (!isValidSessionId(record.id))
    problems.push(`id ${JSON.stringify(record.id)} is not a valid session id`);
  if (typeof record.savedAt !== 'string' || Number.isNaN(Date.parse(record.savedAt))) {
    problems.push('field "savedAt" is missing or not an ISO date');
  }
  if (record.label !== undefined && typeof record.label !== 'string') {
    problems.push('field "label" is not a string');
  }
  if (record.revision !== undefined && !isRevision(record.revision)) {
    problems.push('field "revision" is not a whole number >= 0');
  }
  if (!('state' in record) || record.state === undefined) problems.push('field "state" is missing');
  return problems;
}

/** Throws a SnapshotError naming the first place where `value` is not plain JSON. */
function assertJson(value: unknown): void {
  const problem = findNonJson(value, 'state', new Map());
  if (problem !== undefined) {
    throw new SnapshotError(`Session state is not JSON-serializable: ${problem}.`);
  }
}

/**
 * A small walk instead of comparing a JSON round trip, because it can say *where* the problem
 * is. `ancestors` maps each object on the current path to its path, so cycles are reported while
 * an object shared in two places (which JSON simply duplicates) is fine.
 */
function findNonJson(
  value: unknown,
  path: string,
  ancestors: Map<object, string>,
): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `${path} is ${value}, which JSON turns into null`;
    case 'undefined':
      return `${path} is undefined, which JSON drops or turns into null`;
    case 'function':
      return `${path} is a function`;
    case 'symbol':
      return `${path} is a symbol`;
    case 'bigint':
      return `${path} is a BigInt, which JSON cannot represent (store it as a string)`;
  }
  if (value === null) return undefined;
  const object = value as object;
  // Checked before and frozen since: still JSON.
  if (settled.has(object)) return undefined;
  const shape = shapeProblem(object, path, ancestors);
  if (shape !== undefined) return shape;

  ancestors.set(object, path);
  try {
    if (Array.isArray(object)) {
      for (let i = 0; i < object.length; i++) {
        if (!(i in object))
          return `${path}[${i}] is an empty array slot, which JSON turns into null`;
        const problem = findNonJson(object[i], `${path}[${i}]`, ancestors);
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
    for (const [key, child] of Object.entries(object)) {
      // See createSnapshot: an undefined property is dropped, which reads back the same.
      if (child === undefined) continue;
      const problem = findNonJson(child, `${path}${keyPath(key)}`, ancestors);
      if (problem !== undefined) return problem;
    }
    return undefined;
  } finally {
    ancestors.delete(object);
  }
}

/** A cycle back to an ancestor, or an object that is neither a plain object nor an array. */
function shapeProblem(
  object: object,
  path: string,
  ancestors: Map<object, string>,
): string | undefined {
  const seenAt = ancestors.get(object);
  if (seenAt !== undefined) return `${path} refers back to ${seenAt} (a cycle)`;
  if (Array.isArray(object)) return undefined;
  const proto: unknown = Object.getPrototypeOf(object);
  if (proto !== Object.prototype && proto !== null) {
    const name = (object as { constructor?: { name?: string } }).constructor?.name ?? 'non-plain';
    const hint = object instanceof Date ? ' (store dates as ISO strings)' : '';
    return `${path} is a ${name} object, not a plain object or array${hint}`;
  }
  return undefined;
}

function keyPath(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
