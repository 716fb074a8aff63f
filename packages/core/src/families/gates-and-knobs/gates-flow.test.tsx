import { type ScriptedModel, type ScriptedTurn, scriptedModel } from '@agate/testing';
import { type ReactNode, useLayoutEffect } from 'react';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AgateEvent,
  Gate,
  GateDeadlockError,
  type GateDescriptor,
  gate,
  KnobDeclarationError,
  SessionStateError,
  System,
  type TickResult,
  Timeline,
  Tool,
  User,
  useGate,
  useKnob,
} from '../../index.js';
import { createSession, type SessionOptions } from '../../runtime/session.js';
import { GatePredicateError } from './gate-transitions.js';

// ---- the agent under test --------------------------------------------------------------

const edits = (tick: TickResult) => tick.toolCalls.some((c) => c.toolName === 'write_file');

const verification = gate({
  description: 'Verify your changes before completing',
  instructions: 'VERIFICATION PENDING: you changed files. Run the tests, then clear this gate.',
  activateWhen: edits,
});

/** True when a run_tests call succeeded (exit code 0) after the last write_file, over recent ticks. */
function testsPassedAfterLastWrite(ticks: readonly TickResult[]): boolean {
  let passed = false;
  for (const tick of ticks) {
    for (const call of tick.toolCalls) {
      if (call.toolName === 'write_file') passed = false;
      if (call.toolName === 'run_tests') {
        const result = tick.toolResults.find((r) => r.toolCallId === call.toolCallId);
        const output = result?.output as { exitCode?: number } | undefined;
        passed = result !== undefined && !result.isError && output?.exitCode === 0;
      }
    }
  }
  return passed;
}

/** A tiny coding agent; its tools only record what they were asked. */
function Coder(props: { children?: ReactNode; tools?: 'all' | 'no-tests' }) {
  return (
    <>
      <System>You fix bugs. Change files with write_file, check with run_tests.</System>
      <User>Fix add() in math.js.</User>
      <Timeline />
      <Tool
        name="write_file"
        description="Write a file."
        input={z.object({ path: z.string(), content: z.string() })}
        execute={({ path }) => `wrote ${path}`}
      />
      {props.tools !== 'no-tests' && (
        <Tool
          name="run_tests"
          description="Run the test suite."
          input={z.object({})}
          execute={() => ({ exitCode: 0, output: '1 passing' })}
        />
      )}
      {props.children}
    </>
  );
}

function Verified(props: { descriptor?: GateDescriptor }) {
  const v = useGate('verification', props.descriptor ?? verification);
  return <Coder>{v.element}</Coder>;
}

// ---- scripted turns --------------------------------------------------------------------

const write: ScriptedTurn = {
  toolCalls: [{ toolName: 'write_file', input: { path: 'math.js', content: 'fixed' } }],
};
const runTests: ScriptedTurn = { toolCalls: [{ toolName: 'run_tests', input: {} }] };
const setKnob = (name: string, value: unknown): ScriptedTurn => ({
  toolCalls: [{ toolName: 'set_knob', input: { name, value } }],
});
const finish = (text = 'Done.'): ScriptedTurn => text;

// ---- helpers ---------------------------------------------------------------------------

async function runAgent(
  element: ReactNode,
  turns: ScriptedTurn[],
  options: Partial<SessionOptions> & { repeat?: boolean } = {},
) {
  const { repeat, ...sessionOptions } = options;
  const model = scriptedModel(turns, repeat ? { whenExhausted: 'repeat-last' } : {});
  const events: AgateEvent[] = [];
  const session = createSession(element, {
    model,
    onEvent: (e) => events.push(e),
    ...sessionOptions,
  });
  const result = await session.run();
  return { model, events, session, result };
}

/** Gate and exit events as short lines: what changed, who changed it, in which tick. */
function gateLog(events: readonly AgateEvent[]): string[] {
  const lines: string[] = [];
  for (const e of events) {
    if (e.type === 'gate:activated' || e.type === 'gate:deferred' || e.type === 'gate:cleared') {
      lines.push(`${e.tick} ${e.type} ${e.gate} (from ${e.from}) by ${e.by}`);
    } else if (e.type === 'exit:blocked') {
      lines.push(`${e.tick} exit:blocked ${e.gates.join(',')}`);
    }
  }
  return lines;
}

/** The last message of the i-th request: where the ephemeral content goes. */
function lastMessage(model: ScriptedModel, i: number): { role: string; text: string } {
  const message = model.calls[i]?.prompt.at(-1);
  if (!message) throw new Error(`no call ${i}`);
  const text =
    typeof message.content === 'string'
      ? message.content
      : message.content.map((p) => ('text' in p ? p.text : JSON.stringify(p))).join('\n');
  return { role: message.role, text };
}

function toolResults(events: readonly AgateEvent[]) {
  return events.flatMap((e) => (e.type === 'tool:result' ? [e] : []));
}

// ---- the flows -------------------------------------------------------------------------

describe('edit, try to finish, verify, clear, finish', () => {
  it('refuses the first finish, shows VERIFICATION PENDING, and completes once cleared', async () => {
    const { model, events, result, session } = await runAgent(<Verified />, [
      write,
      finish('Fixed it.'),
      runTests,
      setKnob('verification', 'inactive'),
      finish('Fixed and verified.'),
    ]);

    expect(result.status).toBe('completed');
    expect(result.reason).toBeUndefined();
    expect(result.ticks).toBe(5);
    expect(result.text).toBe('Fixed and verified.');
    expect(result.gates).toEqual({ verification: 'inactive' });
    expect(gateLog(events)).toEqual([
      '1 gate:activated verification (from inactive) by runtime',
      '2 exit:blocked verification',
      '4 gate:cleared verification (from active) by model',
    ]);

    // Tick 1: nothing pending yet.
    expect(JSON.stringify(model.calls[0]?.prompt)).not.toContain('VERIFICATION PENDING');
    // Tick 2: the gate is active, its instructions are the last (ephemeral) message.
    expect(lastMessage(model, 1)).toEqual({
      role: 'user',
      text: 'VERIFICATION PENDING: you changed files. Run the tests, then clear this gate.\n(Gate "verification": Verify your changes before completing. When done, clear it with set_knob {"name":"verification","value":"inactive"}.)',
    });
    // Tick 3: after the refused finish, the refusal notice joins the instructions, once.
    const afterRefusal = lastMessage(model, 2).text;
    expect(afterRefusal).toMatch(/^VERIFICATION PENDING/);
    expect(afterRefusal).toContain(
      'EXIT REFUSED: you tried to finish, but a gate is still engaged.',
    );
    expect(afterRefusal).toContain('Gate "verification" is active (refusal 1 of 5)');
    expect(lastMessage(model, 3).text).not.toContain('EXIT REFUSED');
    expect(lastMessage(model, 3).text).toContain('VERIFICATION PENDING');
    // Tick 5: cleared; no gate content at all, the request ends with the set_knob result.
    expect(lastMessage(model, 4).role).toBe('tool');
    expect(JSON.stringify(model.calls[4]?.prompt.at(-1))).toContain(
      'Gate \\"verification\\" cleared.',
    );
    expect(JSON.stringify(model.calls[4]?.prompt)).not.toContain('EXIT REFUSED');

    // Notices are ephemeral: nothing of them is stored.
    expect(JSON.stringify(session.state)).not.toContain('EXIT REFUSED');
    expect(session.state.guards.gates.gates.verification).toMatchObject({
      state: 'inactive',
      blocks: 0,
      changedBy: 'model',
      changedAtTick: 4,
    });
  });
});

describe('defer', () => {
  it('a deferred gate shows one line; trying to finish un-defers it and blocks', async () => {
    const { model, events, result } = await runAgent(<Verified />, [
      write,
      setKnob('verification', 'deferred'),
      finish(),
      setKnob('verification', 'inactive'),
      finish(),
    ]);
    expect(result.status).toBe('completed');
    expect(gateLog(events)).toEqual([
      '1 gate:activated verification (from inactive) by runtime',
      '2 gate:deferred verification (from active) by model',
      '3 gate:activated verification (from deferred) by runtime',
      '3 exit:blocked verification',
      '4 gate:cleared verification (from active) by model',
    ]);
    // While deferred: one line, no instructions.
    expect(lastMessage(model, 2).text).toBe(
      'Gate "verification" is deferred: Verify your changes before completing. It still blocks finishing.',
    );
    // After the exit attempt: active again, instructions and the reason.
    const next = lastMessage(model, 3).text;
    expect(next).toMatch(/^VERIFICATION PENDING/);
    expect(next).toContain('Gate "verification" was deferred, now active again (refusal 1 of 5)');
  });
});

describe('bounded', () => {
  for (const maxBlocks of [0, 1, 3]) {
    it(`a stubborn model is refused exactly ${maxBlocks} time(s) with maxBlocks ${maxBlocks}, then the run ends blocked`, async () => {
      const { model, events, result } = await runAgent(
        <Verified descriptor={{ ...verification, maxBlocks }} />,
        [write, finish('I am sure it works.')],
        { repeat: true, maxTicks: 50 },
      );
      expect(result.status).toBe('blocked');
      expect(result.reason).toContain(
        `Gate "verification" refused ${maxBlocks + 1} attempt${maxBlocks === 0 ? '' : 's'} to finish (maxBlocks ${maxBlocks})`,
      );
      expect(result.reason).toContain('What is missing: VERIFICATION PENDING');
      // One editing tick, N refused attempts that continued, and the attempt that ended it.
      expect(result.ticks).toBe(1 + maxBlocks + 1);
      const refusalsShown = model.calls.filter((c) =>
        JSON.stringify(c.prompt).includes('EXIT REFUSED'),
      ).length;
      expect(refusalsShown).toBe(maxBlocks);
      expect(gateLog(events).filter((l) => l.includes('exit:blocked'))).toHaveLength(maxBlocks + 1);
      const blocked = events.filter((e) => e.type === 'exit:blocked');
      expect(blocked.map((e) => [e.gate, e.by, e.final])).toEqual([
        ...Array.from({ length: maxBlocks }, () => ['verification', 'runtime', false]),
        ['verification', 'runtime', true],
      ]);
      expect(result.gates).toEqual({ verification: 'active' });
    });
  }

  it('the default bound is 5 refusals', async () => {
    const { result, model } = await runAgent(<Verified />, [write, finish()], {
      repeat: true,
      maxTicks: 50,
    });
    expect(result.status).toBe('blocked');
    expect(model.calls).toHaveLength(1 + 5 + 1);
  });

  it('maxTicks exhaustion with an engaged gate is blocked, never completed or max-ticks', async () => {
    const { result } = await runAgent(<Verified />, [write], { repeat: true, maxTicks: 4 });
    expect(result.status).toBe('blocked');
    expect(result.reason).toBe(
      'maxTicks (4) reached while gate "verification" is active (Verify your changes before completing). The agent did not finish; it is not a success.',
    );
  });

  it('maxTicks exhaustion with every gate clear is max-ticks', async () => {
    const { result } = await runAgent(<Verified />, [runTests], { repeat: true, maxTicks: 3 });
    expect(result.status).toBe('max-ticks');
  });
});

function HostVerified() {
  const tests = useGate('tests', {
    description: 'The test suite must pass after your last change',
    instructions: 'Run run_tests after your last change; the gate clears when they pass.',
    activateWhen: edits,
    clearableBy: 'host',
    clearWhen: (_tick, history) => testsPassedAfterLastWrite(history.ticks),
    requiresTools: ['run_tests'],
  });
  return <Coder>{tests.element}</Coder>;
}

function Reviewed() {
  return (
    <Coder>
      <Gate
        name="review"
        description="A person reviews every change"
        instructions="Summarize your change for the reviewer."
        clearableBy="supervisor"
        activateWhen={edits}
      />
    </Coder>
  );
}

describe('who may clear', () => {
  it('set_knob cannot clear a supervisor gate; the run ends blocked until a supervisor clears it', async () => {
    const model = scriptedModel([
      write,
      setKnob('review', 'inactive'),
      finish('Please review.'),
      finish('Thanks for the review.'),
    ]);
    const events: AgateEvent[] = [];
    const session = createSession(<Reviewed />, { model, onEvent: (e) => events.push(e) });

    const first = await session.run();
    expect(first.status).toBe('blocked');
    expect(first.reason).toBe(
      'Waiting for a supervisor: gate "review" (A person reviews every change) must be cleared by a supervisor (session.clearGate("review", "supervisor")) before the agent can finish.',
    );
    const refused = toolResults(events).find((r) => r.toolName === 'set_knob');
    expect(refused?.isError).toBe(true);
    expect(refused?.output).toBe(
      'Gate "review" can only be cleared by a supervisor, not through set_knob. It guards: A person reviews every change. Finish the work it asks for; a person will review and clear it.',
    );
    expect(session.state.guards.gates.gates.review?.state).toBe('active');

    // Neither the host nor a host-side setKnob can stand in for the supervisor.
    expect(() => session.clearGate('review')).toThrow(SessionStateError);
    expect(() => session.setKnob('review', 'inactive', 'host')).toThrow(
      'can only be cleared by a supervisor',
    );
    expect(session.state.guards.gates.gates.review?.state).toBe('active');

    session.clearGate('review', 'supervisor');
    expect(gateLog(events).at(-1)).toBe('3 gate:cleared review (from active) by supervisor');
    const second = await session.run();
    expect(second.status).toBe('completed');
    expect(second.ticks).toBe(1);
    expect(second.text).toBe('Thanks for the review.');
    session.dispose();
  });

  it('a host gate clears itself from evidence (tests passed after the last edit), not from set_knob', async () => {
    const { model, events, result } = await runAgent(<HostVerified />, [
      write,
      setKnob('tests', 'inactive'),
      finish(),
      // Tests first, then another edit: the evidence is stale, the gate stays.
      {
        toolCalls: [
          { toolName: 'run_tests', input: {} },
          { toolName: 'write_file', input: { path: 'math.js', content: 'again' } },
        ],
      },
      runTests,
      finish('Fixed; tests pass.'),
    ]);
    expect(result.status).toBe('completed');
    expect(gateLog(events)).toEqual([
      '1 gate:activated tests (from inactive) by runtime',
      '3 exit:blocked tests',
      '5 gate:cleared tests (from active) by host',
    ]);
    const refused = toolResults(events).find((r) => r.toolName === 'set_knob');
    expect(refused?.isError).toBe(true);
    expect(refused?.output).toContain(
      'Gate "tests" is cleared by the host when it verifies the work, not through set_knob.',
    );
    // The refusal tells the model what satisfies a host gate.
    expect(lastMessage(model, 3).text).toContain(
      'the host clears this gate itself when it sees the evidence (set_knob cannot clear it)',
    );
  });
});

describe('re-activation in the same tick', () => {
  const orders: Array<[string, ScriptedTurn]> = [
    [
      'clear, then edit',
      {
        toolCalls: [
          { toolName: 'set_knob', input: { name: 'verification', value: 'inactive' } },
          { toolName: 'write_file', input: { path: 'math.js', content: 'more' } },
        ],
      },
    ],
    [
      'edit, then clear',
      {
        toolCalls: [
          { toolName: 'write_file', input: { path: 'math.js', content: 'more' } },
          { toolName: 'set_knob', input: { name: 'verification', value: 'inactive' } },
        ],
      },
    ],
  ];
  for (const [name, turn] of orders) {
    it(`${name}: the gate ends the tick active and still blocks`, async () => {
      const { model, events, result } = await runAgent(<Verified />, [
        write,
        turn,
        finish(),
        setKnob('verification', 'inactive'),
        finish(),
      ]);
      expect(result.status).toBe('completed');
      expect(gateLog(events)).toEqual([
        '1 gate:activated verification (from inactive) by runtime',
        '2 gate:cleared verification (from active) by model',
        '2 gate:activated verification (from inactive) by runtime',
        '3 exit:blocked verification',
        '4 gate:cleared verification (from active) by model',
      ]);
      expect(lastMessage(model, 2).text).toMatch(/^VERIFICATION PENDING/);
    });
  }
});

function Moded(props: { gate?: boolean }) {
  const [mode] = useKnob('mode', {
    description: 'How to work',
    options: ['plan', 'build'],
    initial: 'plan',
  });
  const v = useGate('verification', verification);
  return (
    <Coder>
      {props.gate === false ? null : v.element}
      {`mode ${mode}`}
    </Coder>
  );
}

describe('set_knob', () => {
  it('unknown names and invalid values are tool errors that say what is allowed', async () => {
    const { events, result, session } = await runAgent(<Moded />, [
      {
        toolCalls: [
          { toolName: 'set_knob', input: { name: 'speed', value: 'fast' } },
          { toolName: 'set_knob', input: { name: 'mode', value: 'ship' } },
          { toolName: 'set_knob', input: { name: 'verification', value: 'done' } },
          { toolName: 'set_knob', input: { name: 'mode' } },
        ],
      },
      finish(),
    ]);
    expect(result.status).toBe('completed');
    const outputs = toolResults(events).map((r) => [r.isError, r.output]);
    expect(outputs[0]).toEqual([
      true,
      'Tool "set_knob" failed: Unknown knob "speed". Knobs and gates you can set: verification, mode.',
    ]);
    expect(outputs[1]).toEqual([
      true,
      'Tool "set_knob" failed: Invalid value "ship" for knob "mode". Allowed values: "plan", "build".',
    ]);
    expect(outputs[2]?.[0]).toBe(true);
    expect(outputs[2]?.[1]).toContain(
      'Invalid value "done" for gate "verification". Allowed values: "inactive"',
    );
    expect(outputs[3]?.[0]).toBe(true);
    expect(outputs[3]?.[1]).toContain('Invalid arguments for tool "set_knob"');
    expect(session.state.guards.gates.knobs).toEqual({});
    expect(session.state.guards.gates.gates).toEqual({});
  });

  it('one call changes exactly one knob, even when the model tries to smuggle in more', async () => {
    const model = scriptedModel([
      write,
      {
        toolCalls: [
          {
            toolName: 'set_knob',
            input: { name: 'mode', value: 'build', verification: 'inactive', knobs: { x: 1 } },
          },
        ],
      },
    ]);
    const events: AgateEvent[] = [];
    const session = createSession(<Moded />, { model, onEvent: (e) => events.push(e) });
    const result = await session.run({ maxTicks: 2 });
    expect(result.knobs).toEqual({ mode: 'build' });
    expect(result.gates).toEqual({ verification: 'active' });
    expect(result.status).toBe('blocked');
    const changes = events.filter(
      (e) =>
        e.type === 'knob:changed' || (e.type.startsWith('gate:') && 'tick' in e && e.tick === 2),
    );
    expect(changes).toEqual([
      {
        type: 'knob:changed',
        path: [],
        tick: 2,
        knob: 'mode',
        value: 'build',
        previous: 'plan',
        by: 'model',
      },
    ]);
    session.dispose();
  });

  it('is offered only while a knob or gate is rendered, with names and allowed values', async () => {
    const bare = scriptedModel([finish()]);
    await createSession(<Coder />, { model: bare }).run();
    expect(bare.calls[0]?.tools?.map((t) => t.name)).toEqual(['write_file', 'run_tests']);

    const { model } = await runAgent(<Moded />, [finish()]);
    const setKnobTool = model.calls[0]?.tools?.find((t) => t.name === 'set_knob');
    expect(setKnobTool?.type).toBe('function');
    const description = setKnobTool?.type === 'function' ? setKnobTool.description : undefined;
    expect(description).toBe(
      [
        'Change one knob or gate per call: {"name": <knob or gate>, "value": <new value>}. Rendered knobs and gates:',
        '- verification (gate; values: "inactive" clears it, "deferred" acknowledges it and keeps working but still blocks finishing, "active"; you may clear it): Verify your changes before completing',
        '- mode (knob, now "plan"; values: "plan", "build"): How to work',
      ].join('\n'),
    );
  });

  it('is byte-identical across gate changes, so prompt caches keep hitting', async () => {
    const { model } = await runAgent(<Verified />, [
      write,
      setKnob('verification', 'deferred'),
      setKnob('verification', 'inactive'),
      finish(),
    ]);
    const tools = model.calls.map((c) => JSON.stringify(c.tools));
    expect(new Set(tools).size).toBe(1);
  });

  it('host setKnob validates like the model, and names the knobs', async () => {
    const session = createSession(<Moded />, { model: scriptedModel([]) });
    session.render();
    expect(() => session.setKnob('mode', 'ship')).toThrow(KnobDeclarationError);
    expect(() => session.setKnob('nope', 'x')).toThrow(
      'Unknown knob "nope". Knobs and gates you can set: verification, mode.',
    );
    session.setKnob('mode', 'build');
    expect(session.state.guards.gates.knobs.mode).toBe('build');
    session.dispose();
  });
});

// Documented behaviour: exit is decided over the gates rendered now. Its state is kept,
// so mounting it again brings the gate back engaged.
function Phased() {
  const [phase] = useKnob('phase', {
    description: 'Current phase',
    options: ['edit', 'answer'],
    initial: 'edit',
  });
  return <Coder>{phase === 'edit' ? <Gate name="verification" {...verification} /> : null}</Coder>;
}

// A "helpful" component hides the instructions by deferring the gate after every render.
// Deferred gates still block: the exit attempt un-defers it, and the bound still holds.
function Hider() {
  const v = useGate('verification', { ...verification, maxBlocks: 2 });
  useLayoutEffect(() => {
    if (v.active) v.defer();
  });
  return <Coder>{v.element}</Coder>;
}

function Unplaced() {
  useGate('verification', verification);
  return <Coder />;
}

function L() {
  return useGate('lint', {
    description: 'Lint must be clean',
    instructions: 'Run the linter and fix what it reports.',
    activateWhen: edits,
  }).element;
}

function V() {
  return useGate('verification', verification).element;
}

/** Mount order differs too: the gates live in sibling components, in the other order. */
function TwoGatesMountedReversed() {
  return (
    <Coder>
      <V />
      <L />
    </Coder>
  );
}

function TwoGates(props: { reversed: boolean }) {
  const a = useGate('lint', {
    description: 'Lint must be clean',
    instructions: 'Run the linter and fix what it reports.',
    activateWhen: edits,
  });
  const b = useGate('verification', verification);
  const elements = props.reversed ? [b.element, a.element] : [a.element, b.element];
  return <Coder>{elements}</Coder>;
}

describe('exit blocking does not depend on render or registration order', () => {
  it('two gates in either order give the same refusals and the same outcome', async () => {
    const script = (): ScriptedTurn[] => [
      write,
      finish(),
      setKnob('verification', 'inactive'),
      finish(),
      setKnob('lint', 'inactive'),
      finish(),
    ];
    const runs = await Promise.all([
      runAgent(<TwoGates reversed={false} />, script()),
      runAgent(<TwoGates reversed={true} />, script()),
      runAgent(<TwoGatesMountedReversed />, script()),
    ]);
    const notices = runs.map(({ model }) =>
      [2, 4].map((i) => lastMessage(model, i).text.split('EXIT REFUSED')[1]),
    );
    for (const run of runs) {
      expect(run.result.status).toBe('completed');
      expect(gateLog(run.events)).toEqual([
        '1 gate:activated lint (from inactive) by runtime',
        '1 gate:activated verification (from inactive) by runtime',
        '2 exit:blocked lint,verification',
        '3 gate:cleared verification (from active) by model',
        '4 exit:blocked lint',
        '5 gate:cleared lint (from active) by model',
      ]);
    }
    expect(notices[1]).toEqual(notices[0]);
    expect(notices[2]).toEqual(notices[0]);
    expect(notices[0]?.[0]).toContain('2 gates are still engaged');
  });

  it('a gate whose element is not placed still blocks, and the refusal says what to do', async () => {
    const { model, events, result } = await runAgent(<Unplaced />, [
      write,
      finish(),
      setKnob('verification', 'inactive'),
      finish(),
    ]);
    expect(result.status).toBe('completed');
    expect(gateLog(events)).toContain('2 exit:blocked verification');
    // No instructions were rendered on tick 2; the refusal notice carries them on tick 3.
    expect(lastMessage(model, 1).role).toBe('tool');
    const notice = lastMessage(model, 2).text;
    expect(notice).toMatch(/^EXIT REFUSED/);
    expect(notice).toContain('What is missing: VERIFICATION PENDING: you changed files.');
    expect(notice).toContain(
      'What would satisfy it: do the work above, then call set_knob with {"name":"verification","value":"inactive"}.',
    );
  });

  it('a component that keeps deferring the gate from an effect cannot turn the refusal into a finish', async () => {
    const { events, result } = await runAgent(<Hider />, [write, finish()], {
      repeat: true,
      maxTicks: 20,
    });
    expect(result.status).toBe('blocked');
    expect(result.reason).toContain('Gate "verification" refused 3 attempts');
    expect(events.filter((e) => e.type === 'gate:deferred' && e.by === 'host').length).toBe(3);
    expect(gateLog(events).filter((l) => l.includes('exit:blocked'))).toHaveLength(3);
  });

  it('a gate unmounted while engaged keeps blocking until cleared (unmounting is no way around it)', async () => {
    const { model, events, result, session } = await runAgent(<Phased />, [
      write,
      setKnob('phase', 'answer'), // the model switches the phase: the gate's component unmounts
      finish(), // refused: the gate is still active
      setKnob('verification', 'inactive'),
      finish(),
    ]);
    expect(result.status).toBe('completed');
    expect(session.state.guards.gates.gates.verification?.state).toBe('inactive');
    expect(gateLog(events).filter((l) => l.includes('exit:blocked'))).toHaveLength(1);
    expect(events.filter((e) => e.type === 'warning')).toEqual([
      {
        type: 'warning',
        path: [],
        tick: 2,
        code: 'gate-unmounted',
        message:
          'Gate "verification" is active but no longer rendered. It still blocks finishing until it is cleared (set_knob, clearWhen, or session.clearGate("verification")); the runtime shows its instructions while it is active.',
      },
    ]);
    // With no element in the tree, the runtime itself shows the instructions, and set_knob
    // still lists the gate.
    expect(lastMessage(model, 2).text).toContain('VERIFICATION PENDING');
    const setKnobTool = model.calls[3]?.tools?.find((t) => t.name === 'set_knob');
    expect(setKnobTool?.type === 'function' ? setKnobTool.description : '').toContain(
      '- verification (gate',
    );
  });
});

function NoTests() {
  return (
    <Coder tools="no-tests">
      <Gate
        name="verification"
        {...verification}
        requiresTools={['run_tests']}
        clearableBy="host"
        clearWhen={(_t, h) => testsPassedAfterLastWrite(h.ticks)}
      />
    </Coder>
  );
}

function MentionsMissingTool() {
  return (
    <Coder tools="no-tests">
      <Gate
        name="verification"
        description="Verify your changes before completing"
        instructions="VERIFICATION PENDING: call run_tests, then clear this gate."
        activateWhen={edits}
      />
    </Coder>
  );
}

describe('deadlock reporting', () => {
  it('catches a tool the instructions name but the tree does not render (no requiresTools)', async () => {
    const { events, result } = await runAgent(<MentionsMissingTool />, [write, finish()], {
      devChecks: true,
    });
    expect(events.find((e) => e.type === 'warning' && e.code === 'gate-deadlock')).toMatchObject({
      message: expect.stringContaining(
        'Gate "verification" needs tool "run_tests" to be satisfied, but it is not rendered. Its instructions mention it.',
      ),
    });
    expect(result.status).toBe('error');
    expect(result.error).toBeInstanceOf(GateDeadlockError);
  });

  it('warns at the first render, and in development ends the run with a GateDeadlockError once engaged', async () => {
    const { model, events, result } = await runAgent(<NoTests />, [write, finish()], {
      devChecks: true,
    });
    const warnings = events.filter((e) => e.type === 'warning');
    expect(warnings).toEqual([
      {
        type: 'warning',
        path: [],
        tick: 0,
        code: 'gate-deadlock',
        message:
          'Gate "verification" needs tool "run_tests" to be satisfied, but it is not rendered. Render the tool, or drop it from the gate\'s requiresTools.',
      },
    ]);
    expect(result.status).toBe('error');
    expect(result.error).toBeInstanceOf(GateDeadlockError);
    expect(result.reason).toContain('needs tool "run_tests"');
    // It stopped before calling the model with an unsatisfiable gate.
    expect(model.calls).toHaveLength(1);
  });

  it('without devChecks it stays a warning (once) and the run stays bounded', async () => {
    const { events, result } = await runAgent(<NoTests />, [write, finish()], {
      devChecks: false,
      repeat: true,
      maxTicks: 30,
    });
    expect(events.filter((e) => e.type === 'warning' && e.code === 'gate-deadlock')).toHaveLength(
      1,
    );
    expect(result.status).toBe('blocked');
    expect(result.ticks).toBe(1 + 5 + 1);
  });
});

describe('errors', () => {
  it('a throwing activateWhen ends the run with status error, naming the gate', async () => {
    const { result, session } = await runAgent(
      <Verified
        descriptor={{
          ...verification,
          activateWhen: () => {
            throw new TypeError('cannot read toolCalls');
          },
        }}
      />,
      [write],
    );
    expect(result.status).toBe('error');
    expect(result.error).toBeInstanceOf(GatePredicateError);
    expect(result.reason).toBe(
      'Tick 1, guard: Gate "verification": activateWhen threw at tick end: cannot read toolCalls. Fix the predicate; it must return a boolean for any finished tick.',
    );
    // The tick itself is kept; the gate was left as it was.
    expect(session.state.tick).toBe(1);
    expect(session.state.guards.gates.gates).toEqual({});
  });

  it('an invalid inline descriptor fails the render with the gate named', async () => {
    const { result } = await runAgent(
      <Verified descriptor={{ ...verification, maxBlocks: -2 }} />,
      [finish()],
    );
    expect(result.status).toBe('error');
    expect(result.reason).toContain(
      'useGate("verification") maxBlocks must be a whole number >= 0',
    );
  });
});
