import { describe, expect, it } from 'vitest';
import { noteContinuation } from '../state/continuations.js';
import { InvalidSessionIdError, SnapshotError } from './persistence-errors.js';
import {
  createSnapshot,
  isSettledJson,
  isValidSessionId,
  parseSnapshot,
  type SessionSnapshot,
  SNAPSHOT_VERSION,
  serializeSnapshot,
  settledOrigin,
} from './snapshot.js';

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('createSnapshot', () => {
  it('wraps state with format, version, id, time and label', () => {
    const snapshot = createSnapshot('s1', { a: 1 }, 'first');
    expect(snapshot).toMatchObject({
      format: 'agate.session',
      version: SNAPSHOT_VERSION,
      id: 's1',
      label: 'first',
      state: { a: 1 },
    });
    expect(new Date(snapshot.savedAt).toISOString()).toBe(snapshot.savedAt);
    expect('label' in createSnapshot('s1', {})).toBe(false);
  });

  it('deep-copies, so later mutation cannot change the snapshot', () => {
    const state = { list: [{ n: 1 }], nested: { deep: 'x' } };
    const snapshot = createSnapshot('s1', state);
    state.list[0]!.n = 2;
    state.list.push({ n: 3 });
    state.nested.deep = 'y';
    expect(snapshot.state).toEqual({ list: [{ n: 1 }], nested: { deep: 'x' } });
  });

  it('accepts shared references and undefined properties', () => {
    const shared = { v: 1 };
    expect(() => createSnapshot('s1', { a: shared, b: [shared], c: undefined })).not.toThrow();
  });

  const cycle: Record<string, unknown> = { inner: {} };
  (cycle.inner as Record<string, unknown>).back = cycle;
  // biome-ignore lint/suspicious/noSparseArray: a hole on purpose, to test that it is rejected
  const holes = [1, , 3];

  it.each([
    ['a function', { tools: { run: () => 1 } }, 'state.tools.run is a function'],
    ['undefined in an array', { xs: [1, undefined] }, 'state.xs[1] is undefined'],
    ['a BigInt', { big: 10n }, 'state.big is a BigInt'],
    ['a cycle', cycle, 'state.inner.back refers back to state (a cycle)'],
    ['NaN', { scores: [Number.NaN] }, 'state.scores[0] is NaN'],
    ['Infinity', { n: Number.POSITIVE_INFINITY }, 'state.n is Infinity'],
    ['a Date', { at: new Date(0) }, 'state.at is a Date object'],
    ['a Map', { m: new Map() }, 'state.m is a Map object'],
    ['a symbol', { s: Symbol('x') }, 'state.s is a symbol'],
    ['an odd key', { 'my key': [() => 0] }, 'state["my key"][0] is a function'],
    ['a hole', { holes }, 'state.holes[1] is an empty array slot'],
    ['undefined state', undefined, 'state is undefined'],
  ])('rejects %s, naming the path', (_what, state, message) => {
    const error = caught(() => createSnapshot('s1', state));
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as SnapshotError).name).toBe('SnapshotError');
    expect((error as SnapshotError).message).toContain(message);
  });

  it('with shareFrozen, shares deep-frozen parts and copies the rest', () => {
    const message = Object.freeze({
      role: 'user',
      content: Object.freeze([Object.freeze({ n: 1 })]),
    });
    const mutable = { n: 1 };
    const half = Object.freeze({ child: mutable });
    const state = Object.freeze({ timeline: Object.freeze([message]), n: 1 });
    const shared = createSnapshot('s1', state, undefined, { shareFrozen: true });
    expect(shared.state).toBe(state);
    const tree = shared.state as unknown as typeof state;
    expect(isSettledJson(tree.timeline)).toBe(true);
    expect(isSettledJson(message)).toBe(true);
    // A frozen object over a mutable one cannot be shared (it could still change), nor can a
    // mutable array: both are copied, their frozen children shared.
    const loose = Object.freeze({ half, list: [message] });
    const copied = createSnapshot('s1', loose, undefined, { shareFrozen: true }).state;
    expect(copied).not.toBe(loose);
    expect(copied.half).not.toBe(half);
    expect(copied.list).not.toBe(loose.list);
    expect(copied.list[0]).toBe(message);
    mutable.n = 2;
    expect(copied.half.child.n).toBe(1);
    expect(isSettledJson(half)).toBe(false);
    expect(isSettledJson(loose.list)).toBe(false);
    // Without the option, a full copy as before, also of frozen parts.
    const copy = createSnapshot('s1', state).state;
    expect(copy).toEqual(state);
    expect(copy.timeline[0]).not.toBe(message);
  });

  it('checks a frozen part once, and still refuses a frozen part that is not JSON', () => {
    const bad = Object.freeze({ at: Object.freeze(new Date(0)) });
    expect(() =>
      createSnapshot('s1', Object.freeze({ bad }), undefined, { shareFrozen: true }),
    ).toThrow('state.bad.at is a Date object');
    expect(isSettledJson(bad)).toBe(false);
    const getter = Object.freeze(
      Object.defineProperty({}, 'n', { get: () => Math.random(), enumerable: true }),
    );
    const state = createSnapshot('s1', { getter }, undefined, { shareFrozen: true }).state;
    expect(state.getter).not.toBe(getter);
    expect(isSettledJson(getter)).toBe(false);
    expect([
      isSettledJson('x'),
      isSettledJson(1),
      isSettledJson(Number.NaN),
      isSettledJson(null),
    ]).toEqual([true, true, false, true]);
    expect(isSettledJson({})).toBe(false);
  });

  it('checks a long frozen list that goes on from one checked before by identity, up to where it differs', () => {
    const item = (i: number) => Object.freeze({ role: 'user', content: `m${i}` });
    const first = Object.freeze(Array.from({ length: 40 }, (_, i) => item(i)));
    createSnapshot('s1', Object.freeze({ timeline: first }), undefined, { shareFrozen: true });
    expect(settledOrigin(first)).toBeUndefined();
    // The next tick: three dropped at the front, two added.
    const next = Object.freeze([...first.slice(3), item(40), item(41)]);
    const shared = createSnapshot('s1', Object.freeze({ timeline: next }), undefined, {
      shareFrozen: true,
    });
    expect((shared.state as { timeline: unknown }).timeline).toBe(next);
    expect(settledOrigin(next)).toEqual({ items: first, at: 3, same: 37 });
    expect(isSettledJson(next[38])).toBe(true);
    // A new item in the middle is not taken for checked: a bad one is still refused there.
    const bad = Object.freeze([
      ...next.slice(0, 10),
      Object.freeze({ at: Object.freeze(new Date(0)) }),
      ...next.slice(11),
    ]);
    expect(() =>
      createSnapshot('s1', Object.freeze({ timeline: bad }), undefined, { shareFrozen: true }),
    ).toThrow('state.timeline[10].at is a Date object');
    expect(settledOrigin(bad)).toBeUndefined();
  });

  it('takes a noted continuation of a settled array without comparing it again', () => {
    const item = (i: number) => Object.freeze({ role: 'user', content: `n${i}` });
    const before = Object.freeze(Array.from({ length: 50 }, (_, i) => item(i)));
    // Noted (as a tick notes its timeline) before the one it continues is settled: compared.
    const next = Object.freeze([...before.slice(2), item(50)]);
    noteContinuation(next, before, 2);
    createSnapshot('s1', Object.freeze({ timeline: next }), undefined, { shareFrozen: true });
    expect(settledOrigin(next)).toBeUndefined();
    createSnapshot('s1', Object.freeze({ timeline: before }), undefined, { shareFrozen: true });
    const third = Object.freeze([...before.slice(2), item(51), item(52)]);
    noteContinuation(third, before, 2);
    createSnapshot('s1', Object.freeze({ timeline: third }), undefined, { shareFrozen: true });
    expect(settledOrigin(third)).toEqual({ items: before, at: 2, same: 48 });
    expect(isSettledJson(third[48])).toBe(true);
  });

  it('rejects ids that are not safe file names', () => {
    for (const id of ['', '../x', 'a/b', '.hidden', 'a\\b', 'x'.repeat(129), 'sp ace']) {
      expect(() => createSnapshot(id, {})).toThrow(InvalidSessionIdError);
    }
    expect(isValidSessionId('run-2024.01_a')).toBe(true);
    expect(isValidSessionId('x'.repeat(128))).toBe(true);
  });
});

describe('serializeSnapshot and parseSnapshot', () => {
  it('round-trips a snapshot', () => {
    const snapshot = createSnapshot(
      's1',
      { timeline: [{ role: 'user', content: 'hi' }], n: null },
      'l',
    );
    expect(parseSnapshot(serializeSnapshot(snapshot))).toEqual(snapshot);
  });

  it('refuses to serialize a hand-built snapshot with bad state or fields', () => {
    const good = createSnapshot('s1', {});
    const badState = { ...good, state: { f: () => 0 } } as SessionSnapshot;
    expect(() => serializeSnapshot(badState)).toThrow(/state\.f is a function/);
    const badTime = { ...good, savedAt: 'yesterday' };
    expect(() => serializeSnapshot(badTime)).toThrow(/"savedAt"/);
    expect(() => serializeSnapshot({ ...good, id: '../etc' })).toThrow(InvalidSessionIdError);
  });

  const valid = serializeSnapshot(createSnapshot('s1', { a: 1 }));

  it('calls invalid JSON truncated or corrupt and names the source', () => {
    const error = caught(() => parseSnapshot(valid.slice(0, 30), '/data/s1.json')) as SnapshotError;
    expect(error).toBeInstanceOf(SnapshotError);
    expect(error.message).toContain('/data/s1.json');
    expect(error.message).toContain('truncated or corrupt');
    expect(error.path).toBe('/data/s1.json');
    expect(() => parseSnapshot('')).toThrow(/truncated or corrupt/);
  });

  it('rejects JSON that is not a snapshot object', () => {
    expect(() => parseSnapshot('[1,2]')).toThrow(/expected a JSON object, got an array/);
    expect(() => parseSnapshot('null')).toThrow(/got null/);
    expect(() => parseSnapshot('{"format":"other"}')).toThrow(
      /format is "other", expected "agate.session"/,
    );
    expect(() => parseSnapshot('{}')).toThrow(/format is missing/);
  });

  it.each([
    [0, /older @agate\/core/],
    [SNAPSHOT_VERSION + 1, /newer @agate\/core; upgrade/],
  ])('rejects version %s', (version, hint) => {
    const text = JSON.stringify({ ...JSON.parse(valid), version });
    const error = caught(() => parseSnapshot(text, 'f.json')) as SnapshotError;
    expect(error.message).toContain(
      `snapshot version ${version} is not supported by this version of @agate/core (expects ${SNAPSHOT_VERSION})`,
    );
    expect(error.message).toMatch(hint);
    expect(error.path).toBe('f.json');
  });

  it('lists every missing field', () => {
    const text = JSON.stringify({ format: 'agate.session', version: 1 });
    const error = caught(() => parseSnapshot(text)) as SnapshotError;
    expect(error.message).toMatch(/"id"/);
    expect(error.message).toMatch(/"savedAt"/);
    expect(error.message).toMatch(/"state"/);
    expect(() => parseSnapshot(JSON.stringify({ format: 'agate.session' }))).toThrow(/"version"/);
  });

  it('rejects a non-string label', () => {
    const text = JSON.stringify({ ...JSON.parse(valid), label: 5 });
    expect(() => parseSnapshot(text)).toThrow(/"label"/);
  });

  it('drops unknown top-level fields', () => {
    const text = JSON.stringify({ ...JSON.parse(valid), extra: true });
    expect('extra' in parseSnapshot(text)).toBe(false);
  });
});
