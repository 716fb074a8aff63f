import type * as fsp from 'node:fs/promises';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFileStore, DEFAULT_SESSIONS_DIR } from './file-store.js';
import { InvalidSessionIdError, SnapshotError, StaleSessionError } from './persistence-errors.js';
import { createMemoryStore, type SessionStore } from './session-store.js';
import { createSnapshot, type SessionSnapshot } from './snapshot.js';

/** Lets a test make writes to temp files fail part-way, like a full disk. */
const faults = vi.hoisted(() => ({ failTempWrites: false }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof fsp>();
  const open: typeof actual.open = async (...args) => {
    const handle = await actual.open(...args);
    if (!faults.failTempWrites || !String(args[0]).endsWith('.tmp')) return handle;
    return new Proxy(handle, {
      get(target, prop) {
        if (prop === 'writeFile') {
          return async (data: string) => {
            await target.writeFile(data.slice(0, 20));
            throw Object.assign(new Error('ENOSPC: no space left on device, write'), {
              code: 'ENOSPC',
            });
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  };
  return { ...actual, open, default: { ...actual, open } };
});

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agate-store-'));
});

afterEach(async () => {
  faults.failTempWrites = false;
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

function snapshotAt(
  id: string,
  savedAt: string,
  state: unknown = { id },
  label?: string,
): SessionSnapshot {
  return { ...createSnapshot(id, state, label), savedAt };
}

const stores: Array<[string, () => SessionStore]> = [
  ['memory store', () => createMemoryStore()],
  ['file store', () => createFileStore(join(dir, 'sessions'))],
];

describe.each(stores)('%s', (_name, makeStore) => {
  it('saves and loads a snapshot', async () => {
    const store = makeStore();
    const snapshot = createSnapshot('s1', { timeline: ['a'], knobs: { k: 1 } }, 'after tick 1');
    await store.save(snapshot);
    expect(await store.load('s1')).toEqual({ ...snapshot, revision: 1 });
  });

  it('counts a revision on every save; a save over another revision is refused', async () => {
    const store = makeStore();
    await store.save(createSnapshot('r', { n: 1 }), { expectedRevision: 0 });
    const first = await store.load('r');
    expect(first?.revision).toBe(1);
    await store.save(createSnapshot('r', { n: 2 }), { expectedRevision: 1 });
    expect((await store.load('r'))?.revision).toBe(2);
    // A second writer that loaded revision 1 loses: nothing is written, and it says why.
    const stale = store.save(createSnapshot('r', { n: 3 }), { expectedRevision: 1 });
    await expect(stale).rejects.toBeInstanceOf(StaleSessionError);
    await expect(stale).rejects.toThrow(/expected revision 1, found 2/);
    expect((await store.load('r'))?.state).toEqual({ n: 2 });
    // "0": only if not stored yet.
    await expect(
      store.save(createSnapshot('r', { n: 4 }), { expectedRevision: 0 }),
    ).rejects.toBeInstanceOf(StaleSessionError);
    // Without options: last write wins, still counted.
    await store.save(createSnapshot('r', { n: 5 }));
    expect(await store.load('r')).toMatchObject({ revision: 3, state: { n: 5 } });
  });

  it('of many conditional saves from one revision, exactly one wins', async () => {
    const store = makeStore();
    await store.save(createSnapshot('race', { n: 0 }));
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        store.save(createSnapshot('race', { n: i + 1 }), { expectedRevision: 1 }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const losers = results.filter((r) => r.status === 'rejected');
    expect(losers.every((r) => r.reason instanceof StaleSessionError)).toBe(true);
    expect((await store.load('race'))?.revision).toBe(2);
  });

  it('deletes a session with its restore points and tick log', async () => {
    const store = makeStore();
    await store.save(createSnapshot('gone', { n: 1 }));
    await store.saveRestorePoint?.('gone', 1, createSnapshot('gone', { n: 0 }));
    await store.appendTicks?.('gone', [{ tick: 1 } as never]);
    expect(await store.delete?.('gone')).toBe(true);
    expect(await store.load('gone')).toBeUndefined();
    expect(await store.listRestorePoints?.('gone')).toEqual([]);
    expect(await store.loadTicks?.('gone')).toEqual([]);
    expect(await store.delete?.('gone')).toBe(false);
    // Saved again from nothing, it starts at revision 1.
    await store.save(createSnapshot('gone', { n: 2 }), { expectedRevision: 0 });
    expect((await store.load('gone'))?.revision).toBe(1);
  });

  it('pages list() by id, after a cursor, by status', async () => {
    const store = makeStore();
    for (const [id, status] of [
      ['s3', 'completed'],
      ['s1', 'running'],
      ['s2', 'completed'],
      ['s4', 'completed'],
    ] as const) {
      await store.save(createSnapshot(id, { status }));
    }
    const ids = (list: { id: string }[]) => list.map((s) => s.id);
    expect(ids(await store.list({ limit: 2 }))).toEqual(['s1', 's2']);
    expect(ids(await store.list({ limit: 2, after: 's2' }))).toEqual(['s3', 's4']);
    expect(ids(await store.list({ status: 'completed', after: 's2' }))).toEqual(['s3', 's4']);
    expect((await store.list({ limit: 1 }))[0]).toMatchObject({ status: 'running', revision: 1 });
  });

  it('returns undefined for a missing id', async () => {
    expect(await makeStore().load('nope')).toBeUndefined();
  });

  it('replaces a session on save, and is not changed through references', async () => {
    const store = makeStore();
    const state = { n: 1 };
    await store.save(createSnapshot('s1', state));
    const second = createSnapshot('s1', { n: 2 });
    await store.save(second);
    second.state = { n: 99 };
    const loaded = await store.load('s1');
    expect(loaded?.state).toEqual({ n: 2 });
    (loaded?.state as { n: number }).n = 100;
    expect((await store.load('s1'))?.state).toEqual({ n: 2 });
  });

  it('lists sessions oldest first', async () => {
    const store = makeStore();
    await store.save(snapshotAt('b', '2024-01-02T00:00:00.000Z', {}, 'second'));
    await store.save(snapshotAt('a', '2024-01-03T00:00:00.000Z'));
    await store.save(snapshotAt('c', '2024-01-01T00:00:00.000Z'));
    expect(await store.list()).toEqual([
      { id: 'c', savedAt: '2024-01-01T00:00:00.000Z', revision: 1 },
      { id: 'b', savedAt: '2024-01-02T00:00:00.000Z', label: 'second', revision: 1 },
      { id: 'a', savedAt: '2024-01-03T00:00:00.000Z', revision: 1 },
    ]);
  });

  it('rejects unsafe ids with a typed error', async () => {
    const store = makeStore();
    await expect(store.load('../escape')).rejects.toBeInstanceOf(InvalidSessionIdError);
    const bad = { ...createSnapshot('ok', {}), id: '../../etc/passwd' };
    await expect(store.save(bad)).rejects.toBeInstanceOf(InvalidSessionIdError);
  });

  it('refuses unserializable state at save time', async () => {
    const store = makeStore();
    const bad = { ...createSnapshot('s1', {}), state: { f: () => 1 } } as SessionSnapshot;
    await expect(store.save(bad)).rejects.toThrow(SnapshotError);
    expect(await store.load('s1')).toBeUndefined();
  });
});

describe('createFileStore', () => {
  it('uses .agate/sessions under the working directory by default', async () => {
    vi.spyOn(process, 'cwd').mockReturnValue(dir);
    const store = createFileStore();
    await store.save(createSnapshot('s1', {}));
    expect(await readdir(join(dir, DEFAULT_SESSIONS_DIR))).toEqual(['s1.json']);
  });

  it('creates its directory lazily, on first save', async () => {
    const sessions = join(dir, 'deep', 'sessions');
    const store = createFileStore(sessions);
    expect(await store.load('s1')).toBeUndefined();
    expect(await store.list()).toEqual([]);
    await expect(stat(join(dir, 'deep'))).rejects.toMatchObject({ code: 'ENOENT' });
    await store.save(createSnapshot('s1', {}));
    expect((await stat(join(sessions, 's1.json'))).isFile()).toBe(true);
  });

  it('writes readable JSON, one file per session, with no temp files left', async () => {
    const store = createFileStore(dir);
    await store.save(createSnapshot('s1', { a: 1 }));
    await store.save(createSnapshot('s2', { a: 2 }));
    expect((await readdir(dir)).sort()).toEqual(['s1.json', 's2.json']);
    const text = await readFile(join(dir, 's1.json'), 'utf8');
    expect(JSON.parse(text)).toMatchObject({ format: 'agate.session', id: 's1', state: { a: 1 } });
  });

  it('keeps the last good file when the snapshot cannot be serialized', async () => {
    const store = createFileStore(dir);
    await store.save(createSnapshot('s1', { good: true }));
    const before = await readFile(join(dir, 's1.json'), 'utf8');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(store.save({ ...createSnapshot('s1', {}), state: cyclic })).rejects.toThrow(
      /state\.self refers back to state/,
    );
    expect(await readFile(join(dir, 's1.json'), 'utf8')).toBe(before);
    expect(await readdir(dir)).toEqual(['s1.json']);
  });

  it('keeps the last good file when the write fails part-way', async () => {
    const store = createFileStore(dir);
    await store.save(createSnapshot('s1', { good: true }));
    const before = await readFile(join(dir, 's1.json'), 'utf8');
    faults.failTempWrites = true;
    const error = await store.save(createSnapshot('s1', { good: false })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as SnapshotError).message).toMatch(/ENOSPC.*previous save, if any, is untouched/);
    expect((error as SnapshotError).path).toBe(join(dir, 's1.json'));
    expect(await readFile(join(dir, 's1.json'), 'utf8')).toBe(before);
    expect(await readdir(dir)).toEqual(['s1.json']);
    faults.failTempWrites = false;
    expect((await store.load('s1'))?.state).toEqual({ good: true });
  });

  it('gives a clear error, naming the file, for a truncated snapshot', async () => {
    const store = createFileStore(dir);
    await store.save(createSnapshot('s1', { long: 'x'.repeat(100) }));
    const file = join(dir, 's1.json');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.slice(0, text.length / 2));
    const error = await store.load('s1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as SnapshotError).message).toContain(file);
    expect((error as SnapshotError).message).toContain('truncated or corrupt');
    expect((error as SnapshotError).path).toBe(file);
  });

  it('refuses a file that holds a different session than its name says', async () => {
    const store = createFileStore(dir);
    await store.save(createSnapshot('s1', {}));
    await writeFile(join(dir, 'copy.json'), await readFile(join(dir, 's1.json'), 'utf8'));
    await expect(store.load('copy')).rejects.toThrow(/holds session "s1", not "copy"/);
  });

  it('a file written before revisions loads as revision 1, and a conditional save goes over it', async () => {
    const store = createFileStore(dir);
    const old = JSON.stringify({
      format: 'agate.session',
      version: 1,
      id: 'old',
      savedAt: '2024-01-01T00:00:00.000Z',
      state: { n: 1 },
    });
    await writeFile(join(dir, 'old.json'), old);
    const loaded = await store.load('old');
    expect(loaded?.revision).toBe(1);
    await store.save(createSnapshot('old', { n: 2 }), { expectedRevision: 1 });
    expect(await store.load('old')).toMatchObject({ revision: 2, state: { n: 2 } });
  });

  it('list() skips corrupt files, temp files and foreign names but keeps good ones', async () => {
    const store = createFileStore(dir);
    await store.save(snapshotAt('good', '2024-01-01T00:00:00.000Z'));
    await writeFile(join(dir, 'broken.json'), '{"format":"agate.sess');
    await writeFile(join(dir, 'old.json'), JSON.stringify({ format: 'agate.session', version: 0 }));
    await writeFile(join(dir, 'good.json.123.abcdef.tmp'), '{"partial');
    await writeFile(join(dir, 'notes.txt'), 'hello');
    await writeFile(join(dir, '.hidden.json'), '{}');
    expect(await store.list()).toEqual([
      { id: 'good', savedAt: '2024-01-01T00:00:00.000Z', revision: 1 },
    ]);
    // A stray temp file from a crashed write does not shadow the real one.
    expect((await store.load('good'))?.id).toBe('good');
  });

  it('survives concurrent saves of one session: the file is always one complete snapshot', async () => {
    const store = createFileStore(dir);
    const saves = Array.from({ length: 20 }, (_, i) =>
      store.save(createSnapshot('s1', { i, pad: 'y'.repeat(10_000) })),
    );
    await Promise.all(saves);
    const loaded = await store.load('s1');
    const state = loaded?.state as { i: number; pad: string } | undefined;
    expect(state?.i).toBeGreaterThanOrEqual(0);
    expect(state?.pad).toHaveLength(10_000);
    expect(await readdir(dir)).toEqual(['s1.json']);
  });
});
