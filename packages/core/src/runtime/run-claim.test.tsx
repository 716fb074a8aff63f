import { hostname } from 'node:os';
import { scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { createSnapshot } from '../entries/stores.js';
import { FaultAgent, step } from '../faults/harness.js';
import { type AgateEvent, createMemoryStore, createSession, type SessionStore } from '../index.js';
import { SessionRunningElsewhereError } from './run-claim.js';

const agent = <FaultAgent />;
const model = () => scriptedModel([step(1), 'Done.']);

/** A session stored once (revision 1), idle. */
async function stored(store: SessionStore, id: string) {
  const session = createSession(agent, { model: model(), id });
  await store.save(session.snapshot());
  return (await store.load(id))!;
}

describe('a run of a stored session claims it', () => {
  it('saves it as running at the start and releases the claim at the end', async () => {
    const store = createMemoryStore();
    const snapshot = await stored(store, 'job');
    const seen: Array<[string, string | undefined, number | undefined]> = [];
    const watching: SessionStore = {
      ...store,
      save: async (s, o) => {
        const state = s.state as { status: string; reason?: string };
        seen.push([state.status, state.reason, o?.expectedRevision]);
        return store.save(s, o);
      },
    };
    const result = await createSession(agent, { model: model(), store: watching, snapshot }).run();
    expect(result.status).toBe('completed');
    expect(seen).toEqual([
      ['running', expect.stringMatching(`^run\\(\\) in progress: process ${process.pid} on `), 1],
      ['completed', undefined, 2],
    ]);
    expect(await store.load('job')).toMatchObject({ revision: 3, state: { status: 'completed' } });
  });

  it('session.save() during a run saves over the revision the run holds', async () => {
    const memory = createMemoryStore();
    const snapshot = await stored(memory, 'ticking');
    // Slow, like a database: a tick-end save is still in flight when the run ends.
    const store: SessionStore = {
      ...memory,
      save: async (s, o) => {
        await new Promise((r) => setTimeout(r, 20));
        return memory.save(s, o);
      },
    };
    const session = createSession(agent, { model: model(), store, snapshot });
    const saves: Array<Promise<void>> = [];
    session.subscribe(() => saves.push(session.save('tick end')), { types: ['tick:end'] });
    const result = await session.run();
    await Promise.all(saves);
    expect(result.status).toBe('completed');
    // Claim (2), two tick ends (3, 4), the end (5): none of them stale.
    expect(await memory.load('ticking')).toMatchObject({
      revision: 5,
      state: { status: 'completed' },
    });
    expect(session.revision).toBe(5);
  });

  it('a second run() from the same stored revision fails instead of overwriting it', async () => {
    const store = createMemoryStore();
    const snapshot = await stored(store, 'twice');
    const first = createSession(agent, { model: model(), store, snapshot });
    const second = createSession(agent, { model: model(), store, snapshot });
    expect((await first.run()).status).toBe('completed');
    const refused = second.run();
    await expect(refused).rejects.toBeInstanceOf(SessionRunningElsewhereError);
    await expect(refused).rejects.toThrow(
      /Session "twice" is running elsewhere: it was saved by another process since it was loaded \(revision 1, now 3\)/,
    );
    // Nothing written by the second; it can be run again (it is not left "running").
    expect(await store.load('twice')).toMatchObject({ revision: 3 });
    expect(second.state.status).toBe('idle');
  });

  it('refuses a session another live process claimed, unless taken over', async () => {
    const store = createMemoryStore();
    const base = await stored(store, 'held');
    const reason = `run() in progress: process ${process.ppid} on ${hostname()} since 2026-01-01T00:00:00.000Z`;
    await store.save(
      createSnapshot('held', { ...(base.state as object), status: 'running', reason }),
    );
    const snapshot = (await store.load('held'))!;
    await expect(createSession(agent, { model: model(), store, snapshot }).run()).rejects.toThrow(
      new RegExp(`process ${process.ppid} on .* claimed it .*takeOver: true`),
    );
    const taken = await createSession(agent, { model: model(), store, snapshot }).run({
      takeOver: true,
    });
    expect(taken.status).toBe('completed');
  });

  it('takes over, with a warning, a claim whose process is gone from this host', async () => {
    const store = createMemoryStore();
    const base = await stored(store, 'orphan');
    const reason = `run() in progress: process 4194303 on ${hostname()} since 2026-01-01T00:00:00.000Z`;
    await store.save(
      createSnapshot('orphan', { ...(base.state as object), status: 'running', reason }),
    );
    const events: AgateEvent[] = [];
    const snapshot = (await store.load('orphan'))!;
    const result = await createSession(agent, {
      model: model(),
      store,
      snapshot,
      onEvent: (e) => events.push(e),
    }).run();
    expect(result.status).toBe('completed');
    expect(events).toContainEqual(expect.objectContaining({ code: 'run-taken-over' }));
  });

  it('a store written to the old interface (no revisions) is not claimed: last write wins', async () => {
    const texts = new Map<string, ReturnType<typeof createSnapshot>>();
    const old: SessionStore = {
      save: async (s) => {
        texts.set(s.id, s);
      },
      load: async (id) => texts.get(id),
      list: async () => [],
    };
    const session = createSession(agent, { model: model(), id: 'old' });
    await old.save(session.snapshot());
    const snapshot = (await old.load('old'))!;
    const a = await createSession(agent, { model: model(), store: old, snapshot }).run();
    const b = await createSession(agent, { model: model(), store: old, snapshot }).run();
    expect([a.status, b.status]).toEqual(['completed', 'completed']);
  });
});
