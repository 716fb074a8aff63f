import { scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ContinueGate,
  createSession,
  defineGuard,
  GatePredicateError,
  GuardHookError,
  gate,
  RenderError,
  useGate,
  useTick,
} from '../index.js';
import { FaultAgent, step, watch } from './harness.js';

let predicateThrows = true;
const afterStep = gate({
  description: 'Review the steps',
  instructions: 'Review what the steps did.',
  activateWhen: (tick) => {
    if (predicateThrows) throw new TypeError("Cannot read properties of undefined (reading 'n')");
    return tick.toolCalls.length > 5;
  },
});

function Reviewed() {
  return useGate('review', afterStep).element;
}

/** The ContinueGate's uncertainty signal, per tick; a case makes it throw. */
let unsure = (_tick: number): number => 0;

function Watched() {
  const tick = useTick();
  return <ContinueGate uncertainty={() => unsure(tick)} />;
}

/** A component that throws on tick 2. */
function Flaky() {
  if (useTick() === 2) throw new Error('config file vanished');
  return null;
}

/** A guard made with defineGuard whose beforeToolCall throws while `guardThrows` is set. */
let guardThrows = true;
const Policy = defineGuard({
  name: 'policy',
  beforeToolCall: () => {
    if (guardThrows) throw new TypeError('policy file unreadable');
  },
});
const Counter = defineGuard({
  name: 'counter',
  initialState: { calls: 0 },
  stateSchema: z.object({ calls: z.number().int().nonnegative() }),
  afterToolCall: ({ setState }) => setState((previous) => ({ calls: previous.calls + 1 })),
});
let answer: unknown = { end: { status: 'done', reason: 'finished' } };
const Answering = defineGuard({ name: 'answering', tickEnd: () => answer as undefined });
const NotJson = defineGuard({
  name: 'not-json',
  afterToolCall: () => ({ result: { at: new Date(0) } as never }),
});

describe('guard and observer faults', () => {
  it('a gate predicate that throws', async () => {
    predicateThrows = true;
    const model = scriptedModel([step(1), step(2), 'Done.']);
    const session = createSession(<FaultAgent extra={<Reviewed />} />, { model });
    const w = watch(session);

    const failed = await session.run();
    expect(failed.status).toBe('error');
    expect(failed.reason).toBe(
      'Tick 1, guard: Gate "review": activateWhen threw at tick end: Cannot read properties of ' +
        "undefined (reading 'n'). Fix the predicate; it must return a boolean for any finished tick.",
    );
    expect(failed.error).toBeInstanceOf(GatePredicateError);
    expect(failed.error).toMatchObject({ tick: 1, step: 'guard' });
    // The predicate runs after the tick was committed: tick 1 is kept, the gate untouched.
    expect(session.state.tick).toBe(1);
    expect(session.state.guards.gates.gates).toEqual({});
    expect(w.ofType('tick:end')).toHaveLength(0);

    predicateThrows = false;
    expect((await session.run()).status).toBe('completed');
    expect(session.state.tick).toBe(3);
  });

  it('a ContinueGate callback that throws', async () => {
    unsure = (tick) => {
      if (tick === 2) throw new Error('the judge model is offline');
      return 0;
    };
    const model = scriptedModel([step(1), step(2), 'Done.']);
    const session = createSession(<FaultAgent extra={<Watched />} />, { model });
    const w = watch(session);

    const failed = await session.run();
    expect(failed.status).toBe('error');
    expect(failed.reason).toBe(
      "Tick 2, guard: The ContinueGate's uncertainty function threw: the judge model is offline",
    );
    expect(model.calls).toHaveLength(1);
    w.expectStateAfterTick(1);

    unsure = () => 0;
    expect((await session.run()).status).toBe('completed');
    expect(session.state.tick).toBe(3);
  });

  it('a ContinueGate onDecision that throws', async () => {
    let broken = true;
    const onDecision = () => {
      if (broken) throw new Error('metrics sink unreachable');
    };
    const model = scriptedModel([step(1), 'Done.']);
    const session = createSession(<FaultAgent extra={<ContinueGate onDecision={onDecision} />} />, {
      model,
    });
    const failed = await session.run();
    expect(failed.status).toBe('error');
    expect(failed.reason).toBe(
      "Tick 1, guard: The ContinueGate's onDecision threw: metrics sink unreachable",
    );
    expect(session.state.tick).toBe(0);
    expect(model.calls).toHaveLength(0);

    broken = false;
    expect((await session.run()).status).toBe('completed');
  });

  it('a component that throws while rendering', async () => {
    const model = scriptedModel([step(1), 'Done.']);
    const session = createSession(<FaultAgent extra={<Flaky />} />, { model });
    const w = watch(session);
    const failed = await session.run();
    expect(failed.status).toBe('error');
    expect(failed.reason).toBe(
      'Tick 2, render: A component threw while rendering the agent: config file vanished',
    );
    expect(failed.error).toBeInstanceOf(RenderError);
    w.expectStateAfterTick(1);
  });

  it('a ContinueGate isRework that throws a value that is not an Error', async () => {
    let throwIt = true;
    const isRework = () => {
      if (throwIt) throw { code: 'E_JUDGE', detail: 'no answer' };
      return false;
    };
    const model = scriptedModel([step(1), 'Done.']);
    const session = createSession(<FaultAgent extra={<ContinueGate isRework={isRework} />} />, {
      model,
    });
    const failed = await session.run();
    expect(failed.status).toBe('error');
    expect(failed.reason).toBe(
      'Tick 1, guard: The ContinueGate\'s isRework threw on tick 1: {"code":"E_JUDGE","detail":"no answer"}',
    );
    // isRework runs at tick end, after the commit: tick 1 is kept.
    expect(session.state.tick).toBe(1);
    throwIt = false;
    expect((await session.run()).status).toBe('completed');
  });

  it('an event listener that throws', async () => {
    const model = scriptedModel([step(1), 'Done.']);
    const session = createSession(<FaultAgent />, {
      model,
      onEvent: (event) => {
        if (event.type === 'tool:result' || event.type === 'run:end') throw new Error('log full');
      },
    });
    const result = await session.run();
    expect(result.status).toBe('completed');
    expect(result.ticks).toBe(2);
    const warnings = result.events.filter((e) => e.type === 'warning');
    expect(warnings).toEqual([
      {
        type: 'warning',
        path: [],
        tick: 1,
        code: 'listener-failed',
        message:
          'An event listener failed on "tool:result": log full. Listeners are observers, so the ' +
          'run went on; this listener is not reported again.',
      },
    ]);
  });

  it('an event listener that returns a rejected promise', async () => {
    const model = scriptedModel([step(1), 'Done.']);
    const session = createSession(<FaultAgent />, { model });
    const w = watch(session);
    // A warning listener that fails too: reported nowhere, and no loop.
    session.subscribe(async (event) => {
      throw new Error(`webhook returned 503 on ${event.type}`);
    });
    const result = await session.run();
    expect(result.status).toBe('completed');
    await Promise.resolve();
    const warnings = w.ofType('warning');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toBe(
      'An event listener failed on "run:start": webhook returned 503 on run:start. Listeners are ' +
        'observers, so the run went on; this listener is not reported again.',
    );
    expect((await session.run()).status).toBe('error'); // the script is used up: a real error
    expect(w.ofType('warning')).toHaveLength(1);
  });

  it('a defineGuard hook that throws', async () => {
    guardThrows = true;
    const model = scriptedModel([step(1), step(2), 'Done.']);
    let calls = 0;
    const session = createSession(<FaultAgent extra={<Policy />} />, {
      model,
      onEvent: (e) => {
        // The first call goes through: the policy throws from the second one on.
        if (e.type === 'tool:result') calls++;
      },
    });
    guardThrows = false;
    const w = watch(session);
    const first = await session.run({ maxTicks: 1 });
    expect(first.status).toBe('max-ticks');
    guardThrows = true;
    const failed = await session.run();
    expect(failed.status).toBe('error');
    expect(failed.reason).toBe(
      'Tick 2, guard: Guard "policy": beforeToolCall threw: policy file unreadable. Fix the hook; the run ended because a guard that fails cannot be trusted to guard anything.',
    );
    expect(failed.error).toBeInstanceOf(GuardHookError);
    expect(failed.error).toMatchObject({ guard: 'policy', hook: 'beforeToolCall', tick: 2 });
    // The call never ran and tick 2 left no trace.
    expect(calls).toBe(1);
    w.expectStateAfterTick(1);

    guardThrows = false;
    // The script's third turn finishes: tick 2 again, now completed.
    expect((await session.run()).status).toBe('completed');
    expect(session.state.tick).toBe(2);
  });

  it('a defineGuard state restored that does not fit its stateSchema', async () => {
    const first = createSession(<FaultAgent extra={<Counter />} />, {
      model: scriptedModel([step(1), 'Done.']),
    });
    await first.run();
    const snapshot = first.snapshot();
    (snapshot.state as { guards: Record<string, unknown> }).guards.counter = { calls: -3 };
    const model = scriptedModel(['Done.']);
    const session = createSession(<FaultAgent extra={<Counter />} />, { model, snapshot });
    const failed = await session.run();
    expect(failed.status).toBe('error');
    expect(failed.reason).toContain(
      'Tick 3, render: A component threw while rendering the agent: Guard "counter": the state restored at state.guards.counter.calls is invalid: ',
    );
    expect(model.calls).toHaveLength(0);
    expect(session.state.tick).toBe(2);
    expect(session.state.guards.counter).toEqual({ calls: -3 });
  });

  it('a defineGuard hook that answers something that is not an answer', async () => {
    answer = { end: { status: 'done', reason: 'finished' } };
    const model = scriptedModel([step(1), 'Done.']);
    const session = createSession(<FaultAgent extra={<Answering />} />, { model });
    const failed = await session.run();
    expect(failed.status).toBe('error');
    expect(failed.reason).toBe(
      'Tick 1, guard: Guard "answering": tickEnd threw: it answered {"end":{"status":"done","reason":"finished"}}; tickEnd answers undefined (go on) or { end: { status: \'stopped\' | \'paused\', reason: string } }. Fix the hook; the run ended because a guard that fails cannot be trusted to guard anything.',
    );
    // tickEnd runs after the commit: tick 1 is kept.
    expect(session.state.tick).toBe(1);
    answer = undefined;
    expect((await session.run()).status).toBe('completed');
  });

  it('a defineGuard afterToolCall result that is not JSON', async () => {
    const model = scriptedModel([step(1), 'Done.']);
    const session = createSession(<FaultAgent extra={<NotJson />} />, { model });
    const w = watch(session);
    const failed = await session.run();
    expect(failed.status).toBe('error');
    expect(failed.reason).toContain(
      'Tick 1, guard: Guard "not-json": afterToolCall threw: its result at at is a Date, not plain JSON.',
    );
    w.expectStateAfterTick(0);
  });
});
