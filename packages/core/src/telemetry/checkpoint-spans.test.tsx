import { type ScriptedTurn, scriptedModel } from '@agate/testing';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Checkpoint,
  ContinueGate,
  createMemoryStore,
  createSession,
  gate,
  PhaseGates,
  System,
  Timeline,
  Tool,
  User,
  useGate,
} from '../index.js';
import { eventsNamed, formatSpanTree, memoryTracing } from './__fixtures__/span-tree.js';

const verification = gate({
  description: 'Verify your changes before completing',
  instructions: 'VERIFICATION PENDING: you changed files. Run the tests, then clear this gate.',
  activateWhen: (tick) => tick.toolCalls.some((c) => c.toolName === 'write_file'),
});

/**
 * Every guard family at once: a verification gate, a ContinueGate that throttles, phase gates
 * that classify each call, and a checkpoint a supervisor must approve before the fix is written.
 */
function Coder() {
  const v = useGate('verification', verification);
  return (
    <>
      <System>You fix bugs.</System>
      <User>Fix add() in math.js.</User>
      <Timeline />
      <Tool
        name="read_file"
        description="Read a file."
        input={z.object({ path: z.string() })}
        category="read"
        execute={({ path }) => {
          if (path !== 'math.js') throw new Error(`ENOENT: no such file, open '${path}'`);
          return 'export const add = (a, b) => a - b;';
        }}
      />
      <Tool
        name="write_file"
        description="Write a file."
        input={z.object({ path: z.string(), content: z.string() })}
        category="patch"
        execute={({ path }) => `wrote ${path}`}
      />
      <Tool
        name="run_tests"
        description="Run the tests."
        input={z.object({})}
        category="verify"
        execute={() => ({ exitCode: 0, output: '1 passing' })}
      />
      <Checkpoint id="plan" task="Find the bug and say how you will fix it." />
      <ContinueGate cooldownMs={1} checkpointIntervalSteps={100} />
      <PhaseGates mode="warn" />
      {v.element}
    </>
  );
}

const spend = (tokens: number) => ({ usage: { inputTokens: tokens, outputTokens: 0 } });

/**
 * Run 1: read a file that is not there (a tool error), read the right one, submit the plan and
 * try to write at once (the write is refused: the checkpoint is pending), and the run ends
 * awaiting approval. A supervisor approves. Run 2: write the fix (the gate activates), try to
 * finish (refused), with spend accelerating the ContinueGate throttles, run the tests and clear
 * the gate, finish.
 */
const RUN_1: ScriptedTurn[] = [
  { toolCalls: [{ toolName: 'read_file', input: { path: 'math.test.js' } }], ...spend(100) },
  { toolCalls: [{ toolName: 'read_file', input: { path: 'math.js' } }], ...spend(150) },
  {
    toolCalls: [
      {
        toolName: 'submit_checkpoint',
        input: { id: 'plan', summary: 'add() subtracts; I will make it add.' },
      },
      { toolName: 'write_file', input: { path: 'math.js', content: 'fixed' } },
    ],
    ...spend(225),
  },
];
const RUN_2: ScriptedTurn[] = [
  {
    toolCalls: [{ toolName: 'write_file', input: { path: 'math.js', content: 'fixed' } }],
    ...spend(340),
  },
  { text: 'Fixed it.', ...spend(500) },
  {
    toolCalls: [
      { toolName: 'run_tests', input: {} },
      { toolName: 'set_knob', input: { name: 'verification', value: 'inactive' } },
    ],
    ...spend(760),
  },
  { text: 'Fixed and verified.', ...spend(100) },
];

const named = (spans: readonly ReadableSpan[], name: string) =>
  spans.filter((s) => s.name === name);

describe('spans of a run with every guard family', () => {
  it('trace a checkpoint, a refusal, a tool error, a gate refusal and a throttle across two runs', async () => {
    const tracing = memoryTracing();
    const session = createSession(<Coder />, {
      id: 'checkpoint-spans',
      model: scriptedModel([...RUN_1, ...RUN_2], { modelId: 'gpt-test' }),
      store: createMemoryStore(),
      telemetry: { tracer: tracing.tracer },
    });
    const first = await session.run();
    expect(first.status).toBe('awaiting-approval');
    session.approve('plan', { by: 'alice', note: 'Go ahead.' });
    const second = await session.run();
    expect(second.status).toBe('completed');

    const spans = tracing.exporter.getFinishedSpans();
    await expect(formatSpanTree(spans)).toMatchFileSnapshot(
      '__snapshots__/checkpoint-run.spans.txt',
    );

    // The same facts, asserted on their own.
    const runs = named(spans, 'invoke_agent Coder');
    expect(runs.map((r) => r.attributes['agate.run.status'])).toEqual([
      'awaiting-approval',
      'completed',
    ]);
    const [, secondRun] = runs;
    const ticks = named(spans, 'agate.tick');
    expect(ticks.map((t) => t.attributes['agate.tick.decision'])).toEqual([
      'continue',
      'continue',
      'awaiting-approval',
      'continue',
      'refused',
      'continue',
      'completed',
    ]);
    const thirdTick = ticks[2]?.spanContext().spanId;

    // Made inside the submit call: an event on its tick that names the call.
    const submit = named(spans, 'execute_tool submit_checkpoint')[0];
    const [submitted] = eventsNamed(spans, 'agate.checkpoint.submitted');
    expect(submitted?.on).toBe(ticks[2]);
    expect(submitted?.attributes['gen_ai.tool.call.id']).toBe(
      submit?.attributes['gen_ai.tool.call.id'],
    );
    const [pending] = eventsNamed(spans, 'agate.checkpoint.pending');
    expect(pending?.attributes).toMatchObject({
      'agate.checkpoint.id': 'plan',
      'agate.checkpoint.state': 'pending',
      'agate.checkpoint.cause': 'submit',
      'agate.checkpoint.by': 'model',
    });
    // The summary is the model's text: not recorded by default, nor in the run's reason.
    expect(pending?.attributes['agate.checkpoint.reason']).toBeUndefined();
    expect(first.reason).toContain('add() subtracts');
    expect(runs[0]?.attributes['agate.run.reason']).toMatch(
      /^Checkpoint "plan" is awaiting supervisor approval \(submitted: \[summary not recorded\]\)/,
    );

    const refused = named(spans, 'execute_tool write_file')[0];
    expect(refused?.parentSpanContext?.spanId).toBe(thirdTick);
    expect(refused?.status.code).toBe(2);
    expect(refused?.attributes).toMatchObject({
      'error.type': 'refused',
      'agate.tool.refused_by': 'checkpoint',
    });

    // Approved between the runs: traced under the second run.
    const [approved] = eventsNamed(spans, 'agate.checkpoint.approved');
    expect(approved?.on).toBe(secondRun);
    expect(approved?.attributes).toEqual({
      'agate.checkpoint.id': 'plan',
      'agate.checkpoint.state': 'approved',
      'agate.checkpoint.by': 'alice',
      'agate.checkpoint.note': 'Go ahead.',
    });

    expect(named(spans, 'execute_tool read_file')[0]?.status.code).toBe(2);
    expect(eventsNamed(spans, 'agate.exit.blocked')[0]?.attributes['agate.gate.name']).toBe(
      'verification',
    );
    expect(eventsNamed(spans, 'agate.continue.throttled').length).toBeGreaterThan(0);
    const phases = eventsNamed(spans, 'agate.phase.changed');
    expect(phases.at(-1)?.attributes).toMatchObject({
      'agate.gate.understanding': true,
      'agate.gate.change': true,
      'agate.gate.verification': true,
      'agate.gate.readiness': true,
      'agate.gate.no_progress_yet': false,
    });
    expect(typeof phases.at(-1)?.attributes['agate.gate.steps_taken']).toBe('number');
  });
});

describe('spans of a checkpoint with recordOutputs', () => {
  it("record the model's submit summary, on the decisions and in the run's reason", async () => {
    const tracing = memoryTracing();
    const session = createSession(<Coder />, {
      id: 'checkpoint-outputs',
      model: scriptedModel(RUN_1),
      telemetry: { tracer: tracing.tracer, recordOutputs: true },
    });
    expect((await session.run()).status).toBe('awaiting-approval');
    const spans = tracing.exporter.getFinishedSpans();
    expect(
      eventsNamed(spans, 'agate.checkpoint.submitted')[0]?.attributes['agate.checkpoint.summary'],
    ).toBe('add() subtracts; I will make it add.');
    expect(
      eventsNamed(spans, 'agate.checkpoint.pending')[0]?.attributes['agate.checkpoint.reason'],
    ).toBe('submitted: add() subtracts; I will make it add.');
    expect(named(spans, 'invoke_agent Coder')[0]?.attributes['agate.run.reason']).toContain(
      '(submitted: add() subtracts; I will make it add.)',
    );
  });
});
