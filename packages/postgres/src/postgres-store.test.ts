import {
  createSnapshot,
  type SessionSnapshot,
  StaleSessionError,
  updateSession,
} from '@agate/core';
import { requirePostgres, startPostgres, type TestPostgres } from '@agate/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATEST_MIGRATION } from './migrations.js';
import { createPostgresStore, type PostgresStore } from './postgres-store.js';

const message = (i: number) => ({ role: 'assistant', content: `message ${i}` });
const session = (id: string, messages: number, from = 0, extra: object = {}): SessionSnapshot =>
  createSnapshot(id, {
    id,
    status: 'running',
    tick: messages,
    timeline: Array.from({ length: messages }, (_, i) => message(from + i)),
    ...extra,
  });

describe.skipIf(!requirePostgres('@agate/postgres store tests'))('createPostgresStore', () => {
  let server: TestPostgres;
  let pool: pg.Pool;
  let store: PostgresStore;
  let schemas = 0;
  const fresh = () => createPostgresStore({ pool }, { schema: `t${process.pid}_${schemas++}` });

  beforeAll(async () => {
    server = await startPostgres();
    pool = new pg.Pool({ connectionString: server.url });
    store = fresh();
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });

  it('saves and loads a snapshot exactly, with a revision that grows on every save', async () => {
    const snapshot = createSnapshot(
      's1',
      { id: 's1', status: 'idle', timeline: [message(1)], zeta: 1, alpha: [1, { b: 2 }] },
      'after tick 1',
    );
    await store.save(snapshot);
    const loaded = await store.load('s1');
    expect(loaded).toEqual({ ...snapshot, revision: 1 });
    // Key order survives (a signed ledger entry is checked over its JSON).
    expect(JSON.stringify(loaded?.state)).toBe(JSON.stringify(snapshot.state));
    await store.save(snapshot, { expectedRevision: 1 });
    expect((await store.load('s1'))?.revision).toBe(2);
    expect(await store.load('nobody')).toBeUndefined();
  });

  it('keeps a state without a timeline as it is', async () => {
    await store.save(createSnapshot('plain', { n: 1, timeline: 'not an array' }));
    expect((await store.load('plain'))?.state).toEqual({ n: 1, timeline: 'not an array' });
  });

  it('refuses a save over another revision, and nothing is written', async () => {
    await store.save(session('stale', 2), { expectedRevision: 0 });
    await expect(store.save(session('stale', 3), { expectedRevision: 0 })).rejects.toThrow(
      StaleSessionError,
    );
    await store.save(session('stale', 3), { expectedRevision: 1 });
    const lost = store.save(session('stale', 9), { expectedRevision: 1 });
    await expect(lost).rejects.toThrow(/expected revision 1, found 2/);
    const loaded = await store.load('stale');
    expect(loaded?.revision).toBe(2);
    expect((loaded!.state as { timeline: unknown[] }).timeline).toHaveLength(3);
  });

  it('of ten conditional saves racing from one revision on ten connections, exactly one wins', async () => {
    await store.save(session('race', 1));
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        store.save(session('race', 2 + i), { expectedRevision: 1 }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) {
      if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(StaleSessionError);
    }
    // Ten first saves of a new id at once: one creates it, the rest are stale.
    const first = await Promise.allSettled(
      Array.from({ length: 10 }, () => store.save(session('new-race', 1), { expectedRevision: 0 })),
    );
    expect(first.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('saves incrementally: earlier timeline rows are not written again', async () => {
    const id = 'long';
    for (let tick = 1; tick <= 30; tick++) await store.save(session(id, tick * 2));
    const rows = async () =>
      (
        await pool.query<{ seq: string; xmin: string }>(
          `select seq, xmin::text as xmin from "${store.schema}".timeline where session_id = $1 order by seq`,
          [id],
        )
      ).rows;
    const before = await rows();
    expect(before).toHaveLength(60);
    await store.save(session(id, 62));
    const after = await rows();
    expect(after).toHaveLength(62);
    // Same transaction ids on the 60 old rows: untouched; the 2 new ones come from this save.
    expect(after.slice(0, 60)).toEqual(before);
    expect(new Set(after.slice(60).map((r) => r.xmin)).size).toBe(1);
    expect(after[60]?.xmin).not.toBe(before[59]?.xmin);
    const loaded = await store.load(id);
    expect((loaded!.state as { timeline: unknown[] }).timeline).toEqual(
      Array.from({ length: 62 }, (_, i) => message(i)),
    );
  });

  it('follows a timeline trimmed at the front, and rewrites one that was edited', async () => {
    const id = 'trimmed';
    await store.save(session(id, 10));
    // Trimmed: messages 4..11 (4 dropped, 2 added).
    await store.save(session(id, 8, 4));
    expect((await store.load(id))?.state).toMatchObject({
      timeline: Array.from({ length: 8 }, (_, i) => message(4 + i)),
    });
    const count = async () =>
      Number(
        (
          await pool.query(
            `select count(*) from "${store.schema}".timeline where session_id = $1`,
            [id],
          )
        ).rows[0].count,
      );
    expect(await count()).toBe(8);
    // Rewound to an unrelated timeline: replaced whole.
    await store.save(session(id, 3, 100));
    expect((await store.load(id))?.state).toMatchObject({
      timeline: [message(100), message(101), message(102)],
    });
    expect(await count()).toBe(3);
    // Emptied.
    await store.save(session(id, 0));
    expect((await store.load(id))?.state).toMatchObject({ timeline: [] });
  });

  it('pages list({ limit, after, status }) by id', async () => {
    const paged = fresh();
    for (const [id, status] of [
      ['b', 'completed'],
      ['a', 'running'],
      ['d', 'completed'],
      ['c', 'completed'],
    ] as const) {
      await paged.save(createSnapshot(id, { id, status, timeline: [] }));
    }
    const ids = (l: { id: string }[]) => l.map((x) => x.id);
    expect(ids(await paged.list())).toEqual(['b', 'a', 'd', 'c']);
    expect(ids(await paged.list({ limit: 2 }))).toEqual(['a', 'b']);
    expect(ids(await paged.list({ limit: 2, after: 'b' }))).toEqual(['c', 'd']);
    expect(ids(await paged.list({ status: 'completed' }))).toEqual(['b', 'c', 'd']);
    expect((await paged.list({ limit: 1 }))[0]).toMatchObject({
      id: 'a',
      status: 'running',
      revision: 1,
    });
  });

  it('keeps restore points and the tick log apart, and delete removes them all', async () => {
    await store.save(session('kept', 2));
    await store.saveRestorePoint('kept', 1, session('kept', 1));
    await store.saveRestorePoint('kept', 2, session('kept', 2));
    expect((await store.listRestorePoints('kept')).map((p) => p.ref)).toEqual([
      'kept@tick-1',
      'kept@tick-2',
    ]);
    expect((await store.loadRestorePoint('kept', 1))?.state).toMatchObject({ tick: 1 });
    await store.appendTicks('kept', [{ tick: 1 } as never, { tick: 2 } as never]);
    await store.appendTicks('kept', [{ tick: 3 } as never]);
    expect((await store.loadTicks('kept')).map((r) => r.tick)).toEqual([1, 2, 3]);
    await store.appendTicks('kept', [{ tick: 3 } as never], true);
    expect((await store.loadTicks('kept')).map((r) => r.tick)).toEqual([3]);
    expect(await store.delete('kept')).toBe(true);
    expect(await store.load('kept')).toBeUndefined();
    expect(await store.listRestorePoints('kept')).toEqual([]);
    expect(await store.loadTicks('kept')).toEqual([]);
    expect(await store.delete('kept')).toBe(false);
  });

  it('updateSession retries a stale read-modify-write once on what is stored now', async () => {
    await store.save(session('rmw', 1));
    let calls = 0;
    const result = await updateSession(store, 'rmw', async (current, attempt) => {
      calls++;
      if (attempt === 0) await store.save(session('rmw', 5)); // someone else, in between
      const n = (current!.state as { timeline: unknown[] }).timeline.length;
      return { snapshot: session('rmw', n + 1), result: n };
    });
    expect([calls, result]).toEqual([2, 5]);
    expect((await store.load('rmw'))?.revision).toBe(3);
  });

  it('migrates once when many stores start together on an empty schema', async () => {
    const schema = `m${process.pid}`;
    const stores = Array.from({ length: 5 }, () =>
      createPostgresStore({ connectionString: server.url }, { schema }),
    );
    const results = await Promise.all(stores.map((s) => s.migrate()));
    expect(results.flatMap((r) => r.applied)).toEqual([LATEST_MIGRATION]);
    await Promise.all(stores.map((s, i) => s.save(session(`m${i}`, 1))));
    expect(await stores[0]!.list()).toHaveLength(5);
    await Promise.all(stores.map((s) => s.close()));
  });

  it('with migrate: false, says to run `agate db migrate` when the tables are missing', async () => {
    const unmigrated = createPostgresStore({ pool }, { schema: 'never_made', migrate: false });
    await expect(unmigrated.load('x')).rejects.toThrow(/PostgreSQL/);
  });
});
