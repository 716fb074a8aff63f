import { type ScriptedTurn, scriptedModel } from '@agate/testing';
import { trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ContinueGate,
  createMemoryStore,
  createSession,
  gate,
  ModelCallError,
  type SessionOptions,
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

/** A coding agent with a verification gate and a ContinueGate that checkpoints every 2 steps. */
function Coder() {
  const v = useGate('verification', verification);
  return (
    <>
      <System>You fix bugs.</System>
      <User>Fix add() in math.js.</User>
      <Timeline />
      <Tool
        name="write_file"
        description="Write a file."
        input={z.object({ path: z.string(), content: z.string() })}
        execute={({ path }) => `wrote ${path}`}
      />
      <Tool
        name="read_file"
        description="Read a file."
        input={z.object({ path: z.string() })}
        execute={({ path }) => {
          throw new Error(`ENOENT: no such file, open '${path}'`);
        }}
      />
      <Tool
        name="run_tests"
        description="Run the tests."
        input={z.object({})}
        execute={() => ({ exitCode: 0, output: '1 passing' })}
      />
      <ContinueGate cooldownMs={1} checkpointIntervalSteps={2} />
      {v.element}
    </>
  );
}

const spend = (tokens: number) => ({ usage: { inputTokens: tokens, outputTokens: 0 } });

/**
 * Edit (the gate activates), try to finish (refused), checkpoint, read a file that is not there
 * (a tool error), then with spend accelerating the ContinueGate throttles; run the tests and
 * clear the gate; finish.
 */
const TURNS: ScriptedTurn[] = [
  {
    toolCalls: [{ toolName: 'write_file', input: { path: 'math.js', content: 'fixed' } }],
    ...spend(100),
  },
  { text: 'Fixed it.', ...spend(150) },
  { toolCalls: [{ toolName: 'read_file', input: { path: 'math.test.js' } }], ...spend(225) },
  {
    toolCalls: [
      { toolName: 'run_tests', input: {} },
      { toolName: 'set_knob', input: { name: 'verification', value: 'inactive' } },
    ],
    ...spend(340),
  },
  { text: 'Fixed and verified.', ...spend(100) },
];

async function tracedRun(turns: ScriptedTurn[], options: Partial<SessionOptions> = {}) {
  const tracing = memoryTracing();
  const session = createSession(<Coder />, {
    id: 'telemetry-test',
    model: scriptedModel(turns, { modelId: 'gpt-test' }),
    store: createMemoryStore(),
    ...options,
    telemetry: { tracer: tracing.tracer, ...options.telemetry },
  });
  const result = await session.run();
  return { result, spans: tracing.exporter.getFinishedSpans(), session };
}

const named = (spans: readonly ReadableSpan[], name: string) =>
  spans.filter((s) => s.name === name);

afterEach(() => {
  trace.disable();
});

describe('spans of a run', () => {
  it('trace a run with a gate refusal, a tool error, a throttle and a checkpoint as one tree', async () => {
    const { result, spans } = await tracedRun(TURNS);
    expect(result.status).toBe('completed');
    await expect(formatSpanTree(spans)).toMatchFileSnapshot('__snapshots__/run.spans.txt');

    // The same facts, asserted on their own: one tree, rooted at the run.
    const [run] = named(spans, 'invoke_agent Coder');
    const runId = run?.spanContext().spanId;
    const ticks = named(spans, 'agate.tick');
    expect(ticks.map((t) => t.parentSpanContext?.spanId)).toEqual(Array(5).fill(runId));
    expect(ticks.map((t) => t.attributes['agate.tick.decision'])).toEqual([
      'continue',
      'refused',
      'continue',
      'continue',
      'completed',
    ]);
    const failed = named(spans, 'execute_tool read_file')[0];
    expect(failed?.status.code).toBe(2);
    expect(failed?.events.map((e) => e.attributes?.['exception.message'])).toEqual([
      "ENOENT: no such file, open 'math.test.js'",
    ]);
    // Guard decisions are events on the tick they were made in, not spans.
    const [blocked] = eventsNamed(spans, 'agate.exit.blocked');
    expect(blocked?.attributes['agate.gate.name']).toBe('verification');
    expect(blocked?.on).toBe(ticks[1]);
    expect(eventsNamed(spans, 'agate.continue.throttled').length).toBeGreaterThan(0);
    expect(eventsNamed(spans, 'agate.checkpoint.saved')[0]?.attributes).toMatchObject({
      'agate.checkpoint.snapshot_id': 'telemetry-test@tick-2',
    });
    expect(spans.filter((s) => s.name.startsWith('agate.') && s.name !== 'agate.tick')).toEqual([]);
  });

  it('records the error on the model call that failed, and ends the run span in error', async () => {
    const { result, spans } = await tracedRun([
      { toolCalls: [{ toolName: 'run_tests', input: {} }] },
      { error: new Error('upstream 503: overloaded') },
    ]);
    expect(result.status).toBe('error');
    expect(result.error).toBeInstanceOf(ModelCallError);
    const chats = named(spans, 'chat gpt-test');
    expect(chats.map((s) => s.status.code)).toEqual([0, 2]);
    const failed = chats[1]!;
    expect(failed.status.message).toMatch(/upstream 503: overloaded/);
    expect(failed.attributes['error.type']).toBe('ModelCallError');
    expect(failed.events.map((e) => e.name)).toEqual(['exception']);
    expect(failed.events[0]?.attributes?.['exception.type']).toBe('ModelCallError');
    const [run] = named(spans, 'invoke_agent Coder');
    expect(run?.status.code).toBe(2);
    expect(run?.attributes['agate.run.status']).toBe('error');
    expect(named(spans, 'agate.tick').map((t) => t.attributes['agate.tick.decision'])).toEqual([
      'continue',
      'error',
    ]);
  });
});
