import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ScriptedReply, scriptedModel } from '@agate/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SNAPSHOT_VERSION } from '../entries/stores.js';
import {
  ContinueGate,
  type ContinueGateProps,
  createFileStore,
  createSession,
  type SessionSnapshot,
  type SessionState,
  SnapshotError,
  System,
  Timeline,
  Tool,
  User,
} from '../index.js';
import {
  FINAL_TICK,
  PAUSE_AFTER_TICK,
  ResumeAgent,
  resumeModel,
} from './__fixtures__/resume-agent.js';

/** Steps `steps` times (100 tokens each, distinct calls, fixed ids), then finishes. */
function stepsModel(steps: number) {
  return scriptedModel(
    [
      (call): ScriptedReply => {
        const tick = call.options.prompt.filter((m) => m.role === 'assistant').length + 1;
        const usage = { inputTokens: 100, outputTokens: 0 };
        if (tick > steps) return { text: 'Done.', usage };
        return {
          toolCalls: [{ toolName: 'step', input: { n: tick }, toolCallId: `call-${tick}` }],
          usage,
        };
      },
    ],
    { whenExhausted: 'repeat-last' },
  );
}

function Agent({ gate }: { gate?: ContinueGateProps }) {
  return (
    <>
      <System>You work in steps.</System>
      <User>Do the work.</User>
      <Timeline />
      <Tool
        name="step"
        description="Do step n"
        input={z.object({ n: z.number() })}
        execute={({ n }) => `did step ${n}`}
      />
      {gate && <ContinueGate {...gate} />}
    </>
  );
}

/** Round-trips a snapshot through JSON text, as a store or another process would. */
function overTheWire<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

describe('session.snapshot()', () => {
  it('is plain JSON: a JSON round trip changes nothing', async () => {
    const session = createSession(<Agent />, { model: stepsModel(2), id: 'plain' });
    await session.run();
    const snapshot = session.snapshot('after the run');
    expect(overTheWire(snapshot)).toStrictEqual(snapshot);
    expect(snapshot).toMatchObject({
      format: 'agate.session',
      version: SNAPSHOT_VERSION,
      id: 'plain',
      label: 'after the run',
      state: { id: 'plain', tick: 3, status: 'completed' },
    });
    // A copy: the live session going on does not change a snapshot already taken.
    expect(Object.isFrozen(snapshot.state)).toBe(false);
  });
});

describe('a restored session calls the model again', () => {
  it('after a run that ended at maxTicks', async () => {
    const first = createSession(<Agent />, { model: stepsModel(5) });
    const ended = await first.run({ maxTicks: 2 });
    expect(ended.status).toBe('max-ticks');
    const snapshot = overTheWire(first.snapshot());

    const model = stepsModel(5);
    const restored = createSession(<Agent />, { model, snapshot });
    expect(restored.state.status).toBe('max-ticks');
    const result = await restored.run();
    expect(model.calls).toHaveLength(4);
    expect(result.status).toBe('completed');
    expect(result.ticks).toBe(4);
    expect(result.totalTicks).toBe(6);
    expect(result.timeline.length).toBeGreaterThan(ended.timeline.length);
    expect(result.timeline.slice(0, ended.timeline.length)).toEqual(ended.timeline);
  });

  it('after a run the ContinueGate paused', async () => {
    const first = createSession(<ResumeAgent />, { model: resumeModel() });
    const paused = await first.run();
    expect(paused.status).toBe('paused');
    expect(paused.totalTicks).toBe(PAUSE_AFTER_TICK);

    const model = resumeModel();
    const restored = createSession(<ResumeAgent />, {
      model,
      snapshot: overTheWire(first.snapshot()),
    });
    const result = await restored.run();
    expect(result.status).toBe('completed');
    expect(model.calls).toHaveLength(FINAL_TICK - PAUSE_AFTER_TICK);
    expect(result.totalTicks).toBe(FINAL_TICK);
    // The pause was carried in the snapshot, so this run counted as a person resuming it.
    expect(restored.state.guards.continue).toMatchObject({
      stepNumber: FINAL_TICK - PAUSE_AFTER_TICK,
      reworkCount: 0,
    });
  });

  it('after a run the ContinueGate stopped at maxConsecutiveSteps', async () => {
    const gate = { maxConsecutiveSteps: 2 };
    const first = createSession(<Agent gate={gate} />, { model: stepsModel(3) });
    expect((await first.run()).status).toBe('stopped');

    const model = stepsModel(3);
    const restored = createSession(<Agent gate={gate} />, {
      model,
      snapshot: overTheWire(first.snapshot()),
    });
    const result = await restored.run();
    expect(model.calls).toHaveLength(2);
    expect(result.status).toBe('completed');
    expect(result.totalTicks).toBe(4);
  });
});

describe('across run() calls and restores', () => {
  it('maxTicks bounds each run() while tick numbers and budgets carry over', async () => {
    const gate = { budget: { tokens: 500 } };
    const first = createSession(<Agent gate={gate} />, { model: stepsModel(10), maxTicks: 3 });
    const a = await first.run();
    expect([a.status, a.ticks, a.totalTicks]).toEqual(['max-ticks', 3, 3]);

    const restored = createSession(<Agent gate={gate} />, {
      model: stepsModel(10),
      maxTicks: 3,
      snapshot: overTheWire(first.snapshot()),
    });
    expect(restored.state.tick).toBe(3);
    expect(restored.state.usage.totalTokens).toBe(300);
    // 200 tokens of the budget are left: two more ticks, then the gate stops the run.
    const b = await restored.run();
    expect([b.status, b.ticks, b.totalTicks]).toEqual(['stopped', 2, 5]);
    expect(b.usage.totalTokens).toBe(500);
    expect(b.reason).toContain('token budget is exhausted: 0 remaining');
    expect(b.events.filter((e) => e.type === 'tick:start').map((e) => e.tick)).toEqual([4, 5, 6]);
  });

  it('elapsed time carries over too', async () => {
    const first = createSession(<Agent />, { model: stepsModel(3) });
    await first.run({ maxTicks: 1 });
    const elapsed = first.state.guards.continue.elapsedMs;
    const restored = createSession(<Agent />, {
      model: stepsModel(3),
      snapshot: overTheWire(first.snapshot()),
    });
    expect(restored.state.guards.continue.elapsedMs).toBe(elapsed);
    await restored.run();
    expect(restored.state.guards.continue.elapsedMs).toBeGreaterThanOrEqual(elapsed);
  });
});

describe('bad snapshots are refused with a SnapshotError', () => {
  async function goodSnapshot(): Promise<SessionSnapshot> {
    const session = createSession(<Agent />, { model: stepsModel(1), id: 'good' });
    await session.run();
    return overTheWire(session.snapshot());
  }

  function restoreError(snapshot: unknown): unknown {
    try {
      createSession(<Agent />, { model: stepsModel(1), snapshot: snapshot as SessionSnapshot });
    } catch (error) {
      return error;
    }
    throw new Error('createSession accepted the snapshot');
  }

  it('from an older version', async () => {
    const error = restoreError({ ...(await goodSnapshot()), version: 0 });
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as Error).message).toBe(
      'Session snapshot passed to createSession cannot be read: snapshot version 0 is not ' +
        `supported by this version of @agate/core (expects ${SNAPSHOT_VERSION}); it was written ` +
        'by an older @agate/core and there is no migration for it.',
    );
  });

  it('from a newer version', async () => {
    const error = restoreError({ ...(await goodSnapshot()), version: SNAPSHOT_VERSION + 1 });
    expect((error as Error).message).toMatch(/written by a newer @agate\/core; upgrade to read it/);
  });

  it('in the wrong format', async () => {
    const error = restoreError({ ...(await goodSnapshot()), format: 'langgraph.checkpoint' });
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as Error).message).toContain(
      'is not an Agate session snapshot: format is "langgraph.checkpoint", expected "agate.session"',
    );
  });

  it('whose state is not a session state, naming the fields', async () => {
    const good = await goodSnapshot();
    const state = good.state as SessionState;
    const { stepTokens: _dropped, ...progress } = state.guards.continue;
    const guards = { ...state.guards, continue: progress };
    const error = restoreError({ ...good, state: { ...state, tick: 'three', guards } });
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as Error).message).toBe(
      'The snapshot passed to createSession ("good") does not hold a valid Agate session state: ' +
        'state.tick must be a whole number >= 0; state.guards.continue.stepTokens is missing.',
    );
  });
});

describe('the file store with sessions', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agate-resume-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives a clear error for a corrupt file, and a later good save is not blocked by it', async () => {
    const store = createFileStore(dir);
    await writeFile(join(dir, 'notes.json'), '{"format":"agate.session","version":1,"id":"no');
    const error = await store.load('notes').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as Error).message).toMatch(
      /^Session snapshot .*notes\.json is truncated or corrupt: it is not valid JSON/,
    );
    expect(await store.list()).toEqual([]);

    const session = createSession(<Agent />, { model: stepsModel(1), id: 'notes' });
    await session.run();
    await store.save(session.snapshot());
    const loaded = await store.load('notes');
    expect(loaded?.state).toMatchObject({ id: 'notes', status: 'completed' });
    const restored = createSession(<Agent />, { model: stepsModel(1), snapshot: loaded! });
    expect(restored.state.timeline).toEqual(session.state.timeline);
  });

  it('a failed save never overwrites the last good snapshot', async () => {
    const store = createFileStore(dir);
    const session = createSession(<Agent />, { model: stepsModel(3), id: 'kept' });
    await session.run({ maxTicks: 1 });
    await store.save(session.snapshot());
    const before = await readFile(join(dir, 'kept.json'), 'utf8');

    await session.run({ maxTicks: 1 });
    const broken = {
      ...session.snapshot(),
      state: {
        ...session.state,
        guards: { ...session.state.guards, gates: { knobs: { when: new Date(0) }, gates: {} } },
      },
    } as SessionSnapshot;
    await expect(store.save(broken)).rejects.toThrow(
      /state\.guards\.gates\.knobs\.when is a Date object, not a plain object or array/,
    );
    expect(await readFile(join(dir, 'kept.json'), 'utf8')).toBe(before);

    const loaded = await store.load('kept');
    const restored = createSession(<Agent />, { model: stepsModel(3), snapshot: loaded! });
    expect(restored.state.tick).toBe(1);
  });

  it('keeps checkpoints and the paused session side by side', async () => {
    const store = createFileStore(dir);
    const session = createSession(<ResumeAgent gate={{ checkpointIntervalSteps: 2 }} />, {
      model: resumeModel(),
      store,
      id: 'side',
    });
    const result = await session.run();
    expect(result.status).toBe('paused');
    expect((await store.list()).map((s) => [s.id, s.label])).toEqual([['side', 'paused']]);
    expect((await store.listRestorePoints!('side')).map((s) => [s.ref, s.label])).toEqual([
      ['side@tick-2', 'checkpoint at step 2, tick 2'],
      ['side@tick-4', 'checkpoint at step 4, tick 4'],
    ]);
    // The paused copy and the latest checkpoint differ only by the tick taken since.
    expect((await store.load('side'))?.state).toMatchObject({ tick: 5, status: 'paused' });
    expect((await store.loadRestorePoint!('side', 4))?.state).toMatchObject({
      id: 'side',
      tick: 4,
    });
  });
});
