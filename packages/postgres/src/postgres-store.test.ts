import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createSession,
  type SessionSnapshot,
  StaleSessionError,
  System,
  Timeline,
  Tool,
  User,
} from '@agate/core';
import { createSnapshot, migrateState, SNAPSHOT_VERSION, updateSession } from '@agate/core/stores';
import { requirePostgres, scriptedModel, startPostgres, type TestPostgres } from '@agate/testing';
import pg from 'pg';
import { createElement, Fragment } from 'react';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { MIGRATIONS } from './migrations.js';
import { createPostgresStore, type PostgresStore } from './postgres-store.js';

const message = (i: number) => ({ role: 'assistant', content: `message ${i}` });
/** A running session's snapshot as `session.save()` takes it: frozen, shared, not copied. */
const running = (
  id: string,
  timeline: readonly object[],
  signatures: readonly string[] = [],
): SessionSnapshot =>
  createSnapshot(
    id,
    Object.freeze({
      id,
      status: 'running',
      timeline: Object.freeze([...timeline]),
      guards: Object.freeze({
        continue: Object.freeze({ stepNumber: 1, callSignatures: Object.freeze([...signatures]) }),
      }),
      after: 'the lists',
    }),
    undefined,
    { shareFrozen: true },
  );
const frozen = (i: number): object => Object.freeze({ role: 'assistant', content: `message ${i}` });
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
const session = (id: string, messages: number, from = 0, extra: object = {}): SessionSnapshot =>
  createSnapshot(id, {
    id,
    status: 'running',
    tick: messages,
    timeline: Array.from({ length: messages }, (_, i) => message(from + i)),
    ...extra,
  });

/** A note taker: one tool call a tick, for a real session's saves. */
const NoteTaker = () =>
  createElement(
    Fragment,
    null,
    createElement(System, null, 'You take notes.'),
    createElement(User, null, 'Take the notes.'),
    createElement(Timeline),
    createElement(Tool, {
      name: 'note',
      description: 'Take a note',
      input: z.object({ text: z.string() }),
      execute: (input: unknown) => `noted: ${(input as { text: string }).text}`,
    }),
  );

describe.skipIf(!requirePostgres('@agate/postgres store tests'))('createPostgresStore', () => {
  let server: TestPostgres;
  let pool: pg.Pool;
  let store: PostgresStore;
  let schemas = 0;
  const fresh = () => createPostgresStore({ pool }, { schema: `t${process.pid}_${schemas++}` });

  beforeAll(async () => {
    server = await startPostgres();
    pool = new pg.Pool({ connectionString: server.url });
    // The pool's idle connections are its owner's to hear (node-postgres): pool.end() resolves
    // before they have closed, and the server stopping next cuts them.
    pool.on('error', () => {});
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

  const rowsOf = async (table: string, id: string) =>
    (
      await pool.query<{ seq: string; xmin: string }>(
        `select seq, xmin::text as xmin from "${store.schema}".${table} where session_id = $1 order by seq`,
        [id],
      )
    ).rows;
  const stateOf = async (id: string, from = store) =>
    (await from.load(id))?.state as {
      timeline: unknown[];
      guards: { continue: { callSignatures: string[] } };
    };

  it('a running session saved every tick serializes only what the tick added', async () => {
    const id = 'by-identity';
    const messages = range(0, 400).map(frozen);
    const signatures = range(0, 400).map((i) => `note:{"text":"${i}"}`);
    await store.save(running(id, messages.slice(0, 398), signatures.slice(0, 199)));
    const before = await rowsOf('timeline', id);
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      await store.save(running(id, messages.slice(0, 400), signatures.slice(0, 200)));
      const serialized = new Set(stringify.mock.calls.map((call) => call[0]));
      // The two new messages, and none of the 398 stored ones.
      expect(messages.filter((m) => serialized.has(m))).toEqual(messages.slice(398, 400));
    } finally {
      stringify.mockRestore();
    }
    const after = await rowsOf('timeline', id);
    expect(after.slice(0, 398)).toEqual(before);
    expect(after).toHaveLength(400);
    const state = await stateOf(id);
    expect(state.timeline).toEqual(messages);
    expect(state.guards.continue.callSignatures).toEqual(signatures.slice(0, 200));
    // The session row holds neither list.
    const head = await pool.query(`select head from "${store.schema}".sessions where id = $1`, [
      id,
    ]);
    expect(head.rows[0].head).toBe(
      '{"id":"by-identity","status":"running","timeline":[],"guards":{"continue":{"stepNumber":1,"callSignatures":[]}},"after":"the lists"}',
    );
  });

  it('follows lists trimmed at the front by identity, and an edit anywhere in them', async () => {
    const id = 'trim-identity';
    const messages = range(0, 40).map(frozen);
    const sig = (i: number) => `s${i}`;
    await store.save(running(id, messages.slice(0, 20), range(0, 10).map(sig)));
    const before = await rowsOf('timeline', id);
    // Five messages and two signatures dropped, two and one added.
    await store.save(running(id, messages.slice(5, 22), range(2, 11).map(sig)));
    const after = await rowsOf('timeline', id);
    expect(after.slice(0, 15)).toEqual(before.slice(5));
    expect(after).toHaveLength(17);
    expect(await rowsOf('signatures', id)).toHaveLength(9);
    let state = await stateOf(id);
    expect(state.timeline).toEqual(messages.slice(5, 22));
    expect(state.guards.continue.callSignatures).toEqual(range(2, 11).map(sig));
    // A message in the middle replaced (a decided call's result going into its tool message),
    // same length, same last messages: found, and the list rewritten.
    const edited = messages.slice(5, 22);
    edited[3] = Object.freeze({ role: 'tool', content: 'decided' });
    await store.save(running(id, edited, range(2, 11).map(sig)));
    state = await stateOf(id);
    expect(state.timeline).toEqual(edited);
    // A signature in the middle changed too.
    const sigs = range(2, 11).map(sig);
    sigs[1] = 'changed';
    await store.save(running(id, edited, sigs));
    expect((await stateOf(id)).guards.continue.callSignatures).toEqual(sigs);
    // Rewound to an earlier, shorter snapshot (a restore): rewritten.
    await store.save(running(id, messages.slice(0, 3), []));
    state = await stateOf(id);
    expect(state.timeline).toEqual(messages.slice(0, 3));
    expect(state.guards.continue.callSignatures).toEqual([]);
    expect(await rowsOf('timeline', id)).toHaveLength(3);
  });

  it('checks the whole stored list when it did not write it: an edited copy is rewritten', async () => {
    const id = 'edited-copy';
    await store.save(session(id, 10));
    // A copy (as a session restored from a load saves): same length, same tail, one message
    // changed in the middle. The tail alone would call it unchanged.
    const copy = session(id, 10);
    (copy.state as { timeline: { content: string }[] }).timeline[4]!.content = 'edited';
    await store.save(copy);
    expect((await stateOf(id)).timeline[4]).toEqual({ role: 'assistant', content: 'edited' });
    // And an unchanged copy that goes on appends, leaving the stored rows as they are.
    const before = await rowsOf('timeline', id);
    const longer = session(id, 12);
    (longer.state as { timeline: { content: string }[] }).timeline[4]!.content = 'edited';
    await store.save(longer);
    expect((await rowsOf('timeline', id)).slice(0, 10)).toEqual(before);
    expect((await stateOf(id)).timeline).toHaveLength(12);
  });

  it('a save after another store (another process) saved the session writes what it was given', async () => {
    const id = 'two-writers';
    const mine = createPostgresStore({ pool }, { schema: store.schema });
    const theirs = createPostgresStore({ pool }, { schema: store.schema });
    const messages = range(0, 30).map(frozen);
    await mine.save(running(id, messages.slice(0, 10), ['a']));
    // The other process goes on from there with a different message 5 and more signatures.
    const other = messages.slice(0, 12);
    other[5] = Object.freeze({ role: 'user', content: 'theirs' });
    await theirs.save(running(id, other, ['a', 'b']));
    // This one goes on from what it saved: what it saves is stored, not a mix of both.
    await mine.save(running(id, messages.slice(0, 11), ['a', 'c']));
    let state = await stateOf(id);
    expect(state.timeline).toEqual(messages.slice(0, 11));
    expect(state.guards.continue.callSignatures).toEqual(['a', 'c']);
    // Deleted and saved afresh by the other process at the same revision (1): still not mixed.
    await mine.save(running(id, messages.slice(0, 12), ['a', 'c']));
    expect(await theirs.delete(id)).toBe(true);
    await theirs.save(running(id, other, ['x']));
    await mine.save(running(id, messages.slice(0, 13), ['a', 'c']));
    state = await stateOf(id, theirs);
    expect(state.timeline).toEqual(messages.slice(0, 13));
    expect(state.guards.continue.callSignatures).toEqual(['a', 'c']);
    await mine.close();
    await theirs.close();
  });

  it('reads a session row written before signatures had rows (migration 1)', async () => {
    const id = 'old-row';
    await store.save(session(id, 2, 0, { guards: { continue: { callSignatures: ['x', 'y'] } } }));
    // As migration 1 left it: the signatures inside the head, no rows.
    await pool.query(
      `update "${store.schema}".sessions set has_signatures = false, signatures_count = 0,
         head = replace(head, '"callSignatures":[]', '"callSignatures":["x","y"]') where id = $1`,
      [id],
    );
    await pool.query(`delete from "${store.schema}".signatures where session_id = $1`, [id]);
    expect((await stateOf(id)).guards.continue.callSignatures).toEqual(['x', 'y']);
    await store.save(
      session(id, 3, 0, { guards: { continue: { callSignatures: ['x', 'y', 'z'] } } }),
    );
    expect((await stateOf(id)).guards.continue.callSignatures).toEqual(['x', 'y', 'z']);
  });

  it('reads a row written with snapshot version 1 through the migration, lists included', async () => {
    const id = 'v1-fixture';
    const v1 = JSON.parse(
      await readFile(
        join(
          import.meta.dirname,
          '../../core/src/persistence/__fixtures__/v1-pending-checkpoint.json',
        ),
        'utf8',
      ),
    ).state as Record<string, unknown> & { progress: { callSignatures: string[] } };
    const v2 = migrateState(structuredClone(v1), 1) as Record<string, unknown>;
    expect(v1.progress.callSignatures.length).toBeGreaterThan(0);
    // Saved as today, then the row turned into what version 1 wrote: its head in the old
    // layout (the lists emptied, as a save keeps them), the same timeline and signature rows.
    await store.save(createSnapshot(id, v2));
    const head = { ...v1, timeline: [], progress: { ...v1.progress, callSignatures: [] } };
    await pool.query(
      `update "${store.schema}".sessions set format_version = 1, head = $2 where id = $1`,
      [id, JSON.stringify(head)],
    );
    const loaded = await store.load(id);
    expect(loaded?.version).toBe(SNAPSHOT_VERSION);
    expect(loaded?.state).toEqual(v2);
    // Written back in the current layout at the next save.
    await store.save(loaded!);
    const row = await pool.query(
      `select format_version, head from "${store.schema}".sessions where id = $1`,
      [id],
    );
    expect(row.rows[0].format_version).toBe(SNAPSHOT_VERSION);
    expect(JSON.parse(row.rows[0].head)).not.toHaveProperty('progress');
    expect((await store.load(id))?.state).toEqual(v2);
  });

  it('a real session saved at every tick end, its timeline trimmed, loads as it ended', async () => {
    const id = 'real';
    const model = scriptedModel(
      [
        (call) => ({
          toolCalls: [{ toolName: 'note', input: { text: `note ${call.options.prompt.length}` } }],
        }),
      ],
      { whenExhausted: 'repeat-last' },
    );
    const saves: Promise<void>[] = [];
    const real = createSession(createElement(NoteTaker), {
      model,
      id,
      store,
      maxTimelineMessages: 9,
      onEvent: (event) => {
        if (event.type === 'tick:end') saves.push(real.save(`tick ${event.tick}`));
      },
    });
    const result = await real.run({ maxTicks: 25 });
    await Promise.all(saves);
    expect(result.status).toBe('max-ticks');
    await real.save('ended');
    const loaded = await store.load(id);
    expect(loaded?.state).toEqual(JSON.parse(JSON.stringify(real.state)));
    expect((loaded!.state as { timeline: unknown[] }).timeline.length).toBeLessThanOrEqual(9);
    expect(await rowsOf('timeline', id)).toHaveLength(real.state.timeline.length);
  });

  it('pages list({ limit, after, status }) by id', async () => {
    const paged = fresh();
    const saves = [
      ['b', 'completed'],
      ['a', 'running'],
      ['d', 'completed'],
      ['c', 'completed'],
    ] as const;
    for (const [i, [id, status]] of saves.entries()) {
      // A second apart: the clock's savedAt (milliseconds) can be the same for two saves in a
      // row, and list() breaks such a tie by id (as every store), which is not the save order.
      const savedAt = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
      await paged.save({ ...createSnapshot(id, { id, status, timeline: [] }), savedAt });
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
    expect(results.flatMap((r) => r.applied)).toEqual(MIGRATIONS.map((m) => m.version));
    await Promise.all(stores.map((s, i) => s.save(session(`m${i}`, 1))));
    expect(await stores[0]!.list()).toHaveLength(5);
    await Promise.all(stores.map((s) => s.close()));
  });

  it('with migrate: false, says to run `agate db migrate` when the tables are missing', async () => {
    const unmigrated = createPostgresStore({ pool }, { schema: 'never_made', migrate: false });
    await expect(unmigrated.load('x')).rejects.toThrow(/PostgreSQL/);
  });

  it('transact: saves and other writes in one transaction commit together, or not at all', async () => {
    await pool.query('CREATE TABLE IF NOT EXISTS transact_marks (id text PRIMARY KEY)');
    await store.transact(async (tx) => {
      await tx.save(running('tx-1', [frozen(1)]));
      await tx.client.query("INSERT INTO transact_marks VALUES ('tx-1')");
    });
    expect((await store.load('tx-1'))?.state).toMatchObject({ timeline: [message(1)] });
    // What the work throws reaches the caller as it is, and nothing of it stays.
    const own = new Error('the step lost its run');
    await expect(
      store.transact(async (tx) => {
        await tx.save(running('tx-1', [frozen(1), frozen(2)]));
        await tx.client.query("INSERT INTO transact_marks VALUES ('tx-2')");
        throw own;
      }),
    ).rejects.toBe(own);
    expect((await store.load('tx-1'))?.state).toMatchObject({ timeline: [message(1)] });
    const { rows } = await pool.query('SELECT id FROM transact_marks ORDER BY id');
    expect(rows.map((r) => r.id)).toEqual(['tx-1']);
    // The next plain save after a rolled-back one writes what is missing (no stale diff).
    await store.save(running('tx-1', [frozen(1), frozen(2), frozen(3)]));
    expect((await store.load('tx-1'))?.state).toMatchObject({
      timeline: [message(1), message(2), message(3)],
    });
  });
});
