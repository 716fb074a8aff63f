import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ScriptedCall, type ScriptedReply, scriptedModel } from '@agate/testing';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { DEFAULT_SESSIONS_DIR } from '../../entries/stores.js';
import {
  type AgateEvent,
  ContinueGate,
  type ContinueGateProps,
  createFileStore,
  createMemoryStore,
  createSession,
  InvalidContinueConfigError,
  RenderError,
  type SessionOptions,
  type SessionStore,
  SnapshotError,
  System,
  Timeline,
  Tool,
  User,
  useTick,
} from '../../index.js';

/** The tick a call belongs to: one more than the assistant turns already in the prompt. */
function tickOf(call: ScriptedCall): number {
  return call.options.prompt.filter((m) => m.role === 'assistant').length + 1;
}

const usage = (tokens: number) => ({ inputTokens: tokens, outputTokens: 0 });

/** Calls `step` with `n` (distinct per tick unless `n` is given), spending `tokens` per tick. */
function stepCall(tick: number, tokens = 100, n: number = tick): ScriptedReply {
  return {
    toolCalls: [{ toolName: 'step', input: { n }, toolCallId: `call-${tick}` }],
    usage: usage(tokens),
  };
}

/** A model whose reply is a function of the tick number, so a restored session can go on. */
function tickModel(reply: (tick: number) => ScriptedReply | string) {
  return scriptedModel([(call) => reply(tickOf(call))], { whenExhausted: 'repeat-last' });
}

/** Steps `steps` times with flat spend, then finishes. */
function stepsThenDone(steps: number, tokens = 100) {
  return tickModel((tick) =>
    tick > steps ? { text: 'Done.', usage: usage(tokens) } : stepCall(tick, tokens),
  );
}

/** The agent's work: a task and one `step` tool. */
function StepWork() {
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
    </>
  );
}

function Agent(props: ContinueGateProps) {
  return (
    <>
      <StepWork />
      <ContinueGate {...props} />
    </>
  );
}

function start(props: ContinueGateProps, options: SessionOptions) {
  const events: AgateEvent[] = [];
  const session = createSession(<Agent {...props} />, {
    store: createMemoryStore(),
    ...options,
    onEvent: (event) => events.push(event),
  });
  const ofType = <T extends AgateEvent['type']>(type: T) =>
    events.filter((e): e is Extract<AgateEvent, { type: T }> => e.type === type);
  return { session, events, ofType };
}

describe('<ContinueGate> in the tick loop', () => {
  it('evaluates before every model call and emits the evaluation with its step context', async () => {
    const model = stepsThenDone(2);
    const { session, ofType } = start({}, { model });
    const result = await session.run();
    expect(result.status).toBe('completed');
    const evaluated = ofType('continue:evaluated');
    expect(evaluated.map((e) => [e.tick, e.evaluation.decision])).toEqual([
      [1, 'continue'],
      [2, 'continue'],
      [3, 'continue'],
    ]);
    // Before tick 3 the runtime has seen two steps of 100 tokens and one tool call each.
    expect(evaluated[2]?.step).toEqual({
      stepNumber: 2,
      totalTokensUsed: 200,
      totalToolCalls: 2,
      reworkCount: 0,
      coherenceScore: 1,
      uncertaintyScore: 0,
      budgetRemaining: {},
      lastCheckpointStep: 0,
      stepTokens: [100, 100],
    });
    expect(evaluated[2]?.evaluation.metrics).toEqual({
      budgetSlope: 0,
      reworkRatio: 0,
      coherenceLevel: 1,
      uncertaintyLevel: 0,
      stepsUntilCheckpoint: 23,
    });
  });

  describe('throttle', () => {
    it('waits cooldownMs before the model call when per-step spend accelerates, and goes on', async () => {
      // 100, 150, 225, 338: each step costs 50% more than the one before.
      const model = tickModel((tick) =>
        tick > 4
          ? { text: 'Done.', usage: usage(100) }
          : stepCall(tick, Math.round(100 * 1.5 ** (tick - 1))),
      );
      const { session, ofType } = start({ cooldownMs: 5 }, { model });
      const result = await session.run();

      expect(result.status).toBe('completed');
      expect(model.calls).toHaveLength(5);
      // Three points are the least a slope is read from, so throttling starts before tick 4.
      expect(ofType('continue:throttled')).toEqual([
        { type: 'continue:throttled', path: [], tick: 4, cooldownMs: 5 },
        { type: 'continue:throttled', path: [], tick: 5, cooldownMs: 5 },
      ]);
      const before4 = ofType('continue:evaluated').find((e) => e.tick === 4);
      expect(before4?.evaluation.metrics.budgetSlope).toBeGreaterThan(0.02);
      expect(before4?.evaluation.reasons[0]).toMatch(/^budget slope 0\.\d+ per step/);
    });

    it('does not throttle flat per-step spend, however large the cumulative total grows', async () => {
      const model = stepsThenDone(12, 5_000);
      const { session, ofType } = start({ cooldownMs: 5 }, { model });
      const result = await session.run();
      expect(result.status).toBe('completed');
      expect(result.usage.totalTokens).toBe(13 * 5_000);
      expect(ofType('continue:throttled')).toEqual([]);
      expect(
        ofType('continue:evaluated').every((e) => e.evaluation.metrics.budgetSlope === 0),
      ).toBe(true);
    });

    it('is abortable: an abort during the cooldown ends the run aborted, without a model call', async () => {
      const controller = new AbortController();
      const model = tickModel((tick) => stepCall(tick, 100 * 2 ** tick));
      const decisions: string[] = [];
      const { session } = start(
        // Far longer than the test timeout: only the abort can end this wait.
        { cooldownMs: 600_000, onDecision: (e) => decisions.push(e.decision) },
        { model },
      );
      session.subscribe((event) => {
        if (event.type === 'continue:throttled') controller.abort(new Error('stop waiting'));
      });
      const result = await session.run({ signal: controller.signal });

      expect(result.status).toBe('aborted');
      expect(result.reason).toContain('stop waiting');
      expect(model.calls).toHaveLength(3);
      expect(session.state.tick).toBe(3);
      // The aborted evaluation still reached onDecision.
      expect(decisions).toEqual(['continue', 'continue', 'continue', 'throttle']);
    });
  });

  describe('pause', () => {
    it('pauses a model that repeats the same call, with the rework ratio as the reason', async () => {
      const model = tickModel((tick) => (tick <= 2 ? stepCall(tick, 100, 1) : 'Done.'));
      const store = createMemoryStore();
      const { session } = start({}, { model, store, id: 'repeater' });
      const result = await session.run();

      expect(result.status).toBe('paused');
      expect(result.ticks).toBe(2);
      expect(model.calls).toHaveLength(2);
      expect(result.reason).toBe(
        'ContinueGate paused the run for review: rework ratio 0.5 (1 of 2 steps) is above the ' +
          'maximum 0.3. Call run() to resume.',
      );
      expect(session.state.status).toBe('paused');
      expect(session.state.guards.continue).toMatchObject({ stepNumber: 2, reworkCount: 1 });
      // A paused run is kept in the store, under the session id, for a person to find.
      const saved = await store.load('repeater');
      expect(saved?.label).toBe('paused');
      expect(saved?.state).toMatchObject({ status: 'paused', tick: 2, reason: result.reason });
    });

    it('resumes on run(): the step count starts again and the model is called again', async () => {
      const model = tickModel((tick) => (tick <= 2 ? stepCall(tick, 100, 1) : 'Done.'));
      const { session, ofType } = start({}, { model });
      expect((await session.run()).status).toBe('paused');

      const resumed = await session.run();
      expect(resumed.status).toBe('completed');
      expect(resumed.ticks).toBe(1);
      expect(resumed.totalTicks).toBe(3);
      expect(model.calls).toHaveLength(3);
      const afterResume = ofType('continue:evaluated').at(-1);
      expect(afterResume?.tick).toBe(3);
      expect(afterResume?.step).toMatchObject({
        stepNumber: 0,
        reworkCount: 0,
        lastCheckpointStep: 0,
        // Budgets and usage are the session's, not the stretch's: they carry over.
        totalTokensUsed: 200,
        totalToolCalls: 2,
      });
      expect(session.state.guards.continue.stepNumber).toBe(1);
    });

    it('pauses when the uncertainty function says the agent is unsure, before any model call', async () => {
      const model = stepsThenDone(1);
      const { session } = start({ uncertainty: () => 0.9 }, { model });
      const result = await session.run();
      expect(result.status).toBe('paused');
      expect(result.reason).toContain('uncertainty 0.9 is above the maximum 0.8');
      expect(model.calls).toHaveLength(0);
    });

    it('counts an identical call made twice in one reply as rework', async () => {
      const model = tickModel((tick) =>
        tick === 1
          ? {
              toolCalls: [
                { toolName: 'step', input: { n: 1 }, toolCallId: 'a' },
                { toolName: 'step', input: { n: 1 }, toolCallId: 'b' },
              ],
              usage: usage(100),
            }
          : 'Done.',
      );
      const { session } = start({}, { model });
      const result = await session.run();
      // 1 rework in 1 step is a ratio of 1: paused before tick 2.
      expect(result.status).toBe('paused');
      expect(session.state.guards.continue.reworkCount).toBe(1);
    });

    it('keeps the run paused, and says so, when the store cannot save it', async () => {
      const failing: SessionStore = {
        ...createMemoryStore(),
        save: () => Promise.reject(new Error('disk full')),
      };
      const model = tickModel((tick) => (tick <= 2 ? stepCall(tick, 100, 1) : 'Done.'));
      const { session, ofType } = start({}, { model, store: failing });
      const result = await session.run();
      expect(result.status).toBe('paused');
      expect(result.reason).toMatch(
        /Call run\(\) to resume\. Saving the paused session to the store failed: disk full$/,
      );
      expect(ofType('warning').map((w) => w.code)).toEqual(['pause-save-failed']);
      expect(ofType('run:end')).toHaveLength(1);
      // Still resumable in this process.
      expect((await session.run()).status).toBe('completed');
    });
  });

  describe('checkpoint', () => {
    it('checkpoints a 60-step run at steps 25 and 50, and each snapshot loads at that moment', async () => {
      const store = createMemoryStore();
      const { session, ofType } = start(
        {},
        { model: stepsThenDone(60), store, id: 'long', maxTicks: 100 },
      );
      const result = await session.run();

      expect(result.status).toBe('completed');
      expect(result.totalTicks).toBe(61);
      expect(ofType('checkpoint:saved')).toEqual([
        { type: 'checkpoint:saved', path: [], tick: 26, step: 25, snapshotId: 'long@tick-25' },
        { type: 'checkpoint:saved', path: [], tick: 51, step: 50, snapshotId: 'long@tick-50' },
      ]);
      expect(
        ofType('continue:evaluated')
          .filter((e) => e.evaluation.decision === 'checkpoint')
          .map((e) => e.evaluation.reasons),
      ).toEqual([
        ['25 steps since the last checkpoint (at step 0) reach the interval of 25'],
        ['25 steps since the last checkpoint (at step 25) reach the interval of 25'],
      ]);
      // Restore points live in their own key space: no session id is taken by them.
      expect(await store.list()).toEqual([]);
      expect((await store.listRestorePoints!('long')).map((s) => [s.ref, s.label])).toEqual([
        ['long@tick-25', 'checkpoint at step 25, tick 25'],
        ['long@tick-50', 'checkpoint at step 50, tick 50'],
      ]);

      for (const step of [25, 50]) {
        const snapshot = await store.loadRestorePoint!('long', step);
        if (snapshot === undefined) throw new Error(`checkpoint ${step} is missing`);
        const model = stepsThenDone(60);
        const restored = createSession(<Agent />, { model, snapshot, store: createMemoryStore() });
        expect(restored.id).toBe('long');
        expect(restored.state.tick).toBe(step);
        // Every tick added an assistant turn and its tool result.
        expect(restored.state.timeline).toEqual(result.timeline.slice(0, 2 * step));
        expect(restored.state.usage.totalTokens).toBe(step * 100);
        expect(restored.state.guards.continue).toMatchObject({
          stepNumber: step,
          lastCheckpointStep: step,
        });

        // It goes on from there, to the same end.
        const rest = await restored.run({ maxTicks: 100 });
        expect(rest.status).toBe('completed');
        expect(rest.ticks).toBe(61 - step);
        expect(rest.timeline).toEqual(result.timeline);
      }
    });

    it('does not overwrite earlier checkpoints after a resume starts the step count again', async () => {
      const store = createMemoryStore();
      const { session } = start(
        { checkpointIntervalSteps: 2, maxConsecutiveSteps: 3 },
        { model: stepsThenDone(20), store, id: 'twice' },
      );
      expect((await session.run()).status).toBe('stopped');
      expect((await session.run()).status).toBe('stopped');
      // Step 2 of the first stretch was tick 2; step 2 of the second stretch was tick 5.
      expect((await store.listRestorePoints!()).map((s) => s.ref)).toEqual([
        'twice@tick-2',
        'twice@tick-5',
      ]);
    });

    it('goes to the default file store under the working directory when no store is given', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'agate-default-store-'));
      try {
        vi.spyOn(process, 'cwd').mockReturnValue(dir);
        const session = createSession(<Agent checkpointIntervalSteps={2} />, {
          model: stepsThenDone(3),
          id: 'no-store',
        });
        expect((await session.run()).status).toBe('completed');
        expect(DEFAULT_SESSIONS_DIR).toBe('.agate/sessions');
        expect(
          await readdir(join(dir, DEFAULT_SESSIONS_DIR, '.restore-points', 'no-store')),
        ).toEqual(['tick-2.json']);
        const saved = await createFileStore(join(dir, DEFAULT_SESSIONS_DIR)).loadRestorePoint!(
          'no-store',
          2,
        );
        expect(saved?.state).toMatchObject({ id: 'no-store', tick: 2 });
      } finally {
        vi.restoreAllMocks();
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('ends the run with the store error when a checkpoint cannot be saved, and does not count it', async () => {
      const failing: SessionStore = {
        ...createMemoryStore(),
        save: () => Promise.reject(new SnapshotError('Could not save: disk full')),
        saveRestorePoint: () => Promise.reject(new SnapshotError('Could not save: disk full')),
      };
      const { session } = start(
        { checkpointIntervalSteps: 2 },
        { model: stepsThenDone(5), store: failing },
      );
      const result = await session.run();
      expect(result.status).toBe('error');
      expect(result.error).toBeInstanceOf(SnapshotError);
      expect(result.reason).toBe('Tick 3, store: Could not save: disk full');
      expect(session.state.tick).toBe(2);
      // No restore point was made, so the checkpoint is still due.
      expect(session.state.guards.continue.lastCheckpointStep).toBe(0);
    });
  });

  describe('stop', () => {
    it.each([
      [
        'tokens',
        { tokens: 300 },
        3,
        'token budget is exhausted: 0 remaining, which is not above 0',
      ],
      [
        'toolCalls',
        { toolCalls: 2 },
        2,
        'tool-call budget is exhausted: 0 remaining, which is not above 0',
      ],
    ] as const)('stops when the %s budget runs out', async (_name, budget, ticks, reason) => {
      const model = stepsThenDone(10);
      const { session } = start({ budget }, { model });
      const result = await session.run();
      expect(result.status).toBe('stopped');
      expect(result.ticks).toBe(ticks);
      expect(model.calls).toHaveLength(ticks);
      expect(result.reason).toBe(`ContinueGate stopped the run: ${reason}.`);

      // Budgets carry over a resume: running again stops at once, without a model call.
      const again = await session.run();
      expect(again.status).toBe('stopped');
      expect(again.ticks).toBe(0);
      expect(model.calls).toHaveLength(ticks);
    });

    it('stops when the time budget runs out', async () => {
      // The first reply takes at least 50 ms of the 20 ms budget.
      const model = tickModel((tick) => ({ ...stepCall(tick), delayMs: tick === 1 ? 50 : 0 }));
      const { session } = start({ budget: { timeMs: 20 } }, { model });
      const result = await session.run();
      expect(result.status).toBe('stopped');
      expect(result.ticks).toBe(1);
      expect(result.reason).toMatch(/time budget is exhausted: -\d+(\.\d+)? ms remaining/);
      expect(session.state.guards.continue.elapsedMs).toBeGreaterThanOrEqual(50 - 1);
    });

    it('stops after maxConsecutiveSteps, and a person resuming starts the count again', async () => {
      const model = stepsThenDone(10);
      const { session } = start({ maxConsecutiveSteps: 3 }, { model });
      const first = await session.run();
      expect(first.status).toBe('stopped');
      expect(first.ticks).toBe(3);
      expect(first.reason).toBe(
        'ContinueGate stopped the run: step 3 has reached the limit of 3 consecutive steps ' +
          'without a person resuming the run.',
      );
      const second = await session.run();
      expect(second.status).toBe('stopped');
      expect(second.ticks).toBe(3);
      expect(second.totalTicks).toBe(6);
    });

    it('stops when the coherence function drops below the minimum, and passes it the session', async () => {
      const seen: Array<[number, number]> = [];
      const model = stepsThenDone(10);
      const { session } = start(
        {
          coherence: ({ state, recentTicks }) => {
            seen.push([state.tick, recentTicks.length]);
            return state.tick >= 2 ? 0.3 : 0.9;
          },
        },
        { model },
      );
      const result = await session.run();
      expect(result.status).toBe('stopped');
      expect(result.ticks).toBe(2);
      expect(result.reason).toBe(
        'ContinueGate stopped the run: coherence 0.3 is below the minimum 0.4.',
      );
      expect(seen).toEqual([
        [0, 0],
        [1, 1],
        [2, 2],
      ]);
    });

    it('names the prop when a signal function throws', async () => {
      const { session } = start(
        {
          uncertainty: () => {
            throw new Error('no signal');
          },
        },
        { model: stepsThenDone(1) },
      );
      const result = await session.run();
      expect(result.status).toBe('error');
      expect(result.reason).toBe(
        "Tick 1, guard: The ContinueGate's uncertainty function threw: no signal",
      );
    });
  });

  describe('isRework', () => {
    it('replaces the default detector and sees earlier calls', async () => {
      const histories: Array<{ tick: number; previous: readonly string[]; repeat: boolean }> = [];
      const model = stepsThenDone(5);
      const { session } = start(
        {
          isRework: (tick, history) => {
            histories.push({
              tick: tick.tick,
              previous: [...history.previousCalls],
              repeat: tick.toolCalls.some((c) => history.isRepeat(c)),
            });
            return tick.tick === 2;
          },
        },
        { model },
      );
      const result = await session.run();
      // Distinct calls, but the custom detector called tick 2 rework: 1 of 2 steps.
      expect(result.status).toBe('paused');
      expect(result.reason).toContain('rework ratio 0.5 (1 of 2 steps)');
      expect(histories).toEqual([
        { tick: 1, previous: [], repeat: false },
        { tick: 2, previous: ['step:{"n":1}'], repeat: false },
      ]);
    });

    it('can decline to count exact repeats', async () => {
      const model = tickModel((tick) => (tick <= 5 ? stepCall(tick, 100, 1) : 'Done.'));
      const { session } = start({ isRework: () => false }, { model });
      const result = await session.run();
      expect(result.status).toBe('completed');
      expect(session.state.guards.continue.reworkCount).toBe(0);
    });
  });

  it('calls onDecision for every evaluation, after acting on it', async () => {
    const calls: Array<[string, number]> = [];
    const store = createMemoryStore();
    const { session, ofType } = start(
      {
        checkpointIntervalSteps: 2,
        maxConsecutiveSteps: 4,
        onDecision: (evaluation, step) => calls.push([evaluation.decision, step.stepNumber]),
      },
      { model: stepsThenDone(10), store, id: 'decisions' },
    );
    await session.run();
    expect(calls).toEqual([
      ['continue', 0],
      ['continue', 1],
      ['checkpoint', 2],
      ['continue', 3],
      ['stop', 4],
    ]);
    expect(ofType('continue:evaluated')).toHaveLength(calls.length);
  });

  it('reports stats through session.continueEvaluator', async () => {
    const { session } = start({ checkpointIntervalSteps: 2 }, { model: stepsThenDone(4) });
    expect(session.continueEvaluator).toBeUndefined();
    await session.run();
    const stats = session.continueEvaluator?.stats();
    expect(stats).toMatchObject({
      evaluations: 5,
      counts: { stop: 0, pause: 0, throttle: 0, checkpoint: 2, continue: 3 },
      meanBudgetSlope: 0,
    });
    expect(session.continueEvaluator?.history.map((h) => h.stepNumber)).toEqual([0, 1, 2, 3, 4]);
  });

  describe('invalid config', () => {
    it.each([
      [
        { maxReworkRatio: -1 },
        'ContinueGate "maxReworkRatio" must be a finite number >= 0, got -1.',
      ],
      [
        { cooldownMs: Number.NaN },
        'ContinueGate "cooldownMs" must be a finite number >= 0, got NaN.',
      ],
      [{ budget: { tokens: -5 } }, 'ContinueGate "budget.tokens" must be a number >= 0'],
      [{ budget: { timeMs: Number.NaN } }, 'ContinueGate "budget.timeMs" must be a number >= 0'],
    ] as Array<[ContinueGateProps, string]>)(
      '%o ends the run with error',
      async (props, message) => {
        const model = stepsThenDone(1);
        const { session } = start(props, { model });
        const result = await session.run();
        expect(result.status).toBe('error');
        expect(result.error).toBeInstanceOf(RenderError);
        expect(result.error?.cause).toBeInstanceOf(InvalidContinueConfigError);
        expect(result.reason).toContain(message);
        expect(model.calls).toHaveLength(0);
      },
    );

    it('accepts an unlimited budget', async () => {
      const { session } = start(
        { budget: { tokens: Number.POSITIVE_INFINITY } },
        { model: stepsThenDone(2) },
      );
      expect((await session.run()).status).toBe('completed');
    });
  });
});

/** Renders a ContinueGate from tick `from` on. */
function LateAgent(props: { from: number }) {
  const tick = useTick();
  return (
    <>
      <StepWork />
      {tick >= props.from ? <ContinueGate maxReworkRatio={0.99} /> : null}
    </>
  );
}

describe('<ContinueGate> mounted later', () => {
  it('counts steps and tokens from the first tick, and compares calls from its mount on', async () => {
    // Ticks 1-4 repeat one call; the gate mounts at tick 3, so ticks 3 and 4 see the repeats of
    // ticks 3 and 4 only: tick 4 repeats tick 3 (rework 1), ticks 1-2 were never compared.
    const model = tickModel((tick) => (tick > 4 ? 'Done.' : stepCall(tick, 100, 7)));
    const events: AgateEvent[] = [];
    const session = createSession(<LateAgent from={3} />, {
      model,
      onEvent: (event) => events.push(event),
    });
    const result = await session.run();
    expect(result.status).toBe('completed');
    const evaluated = events.filter(
      (e): e is Extract<AgateEvent, { type: 'continue:evaluated' }> =>
        e.type === 'continue:evaluated',
    );
    expect(evaluated.map((e) => e.tick)).toEqual([3, 4, 5]);
    expect(evaluated[2]?.step).toMatchObject({
      stepNumber: 4,
      totalTokensUsed: 400,
      totalToolCalls: 4,
      reworkCount: 1,
    });
    expect(session.state.guards.continue.callSignatures).toEqual(['step:{"n":7}', 'step:{"n":7}']);
  });
});
