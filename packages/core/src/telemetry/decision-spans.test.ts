import { scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import type { AgateEvent, EventListener } from '../runtime/events.js';
import { formatSpanTree, memoryTracing } from './__fixtures__/span-tree.js';
import { attributeValue, decisionSpan } from './decision-spans.js';
import { SessionTracing } from './session-tracing.js';

/** Events other helpers add to the union, in the shapes agreed for them. */
const phaseChanged = {
  type: 'phase:changed',
  tick: 3,
  status: {
    understanding: 'met',
    change: 'met',
    verification: 'missing',
    readiness: 'blocked',
    evidence: {
      filesRead: 2,
      searchUsed: true,
      patchesProposed: 1,
      verifyUsed: false,
      noProgressYet: false,
      stepsTaken: 4,
    },
  },
} as unknown as AgateEvent;

const checkpointApproved = {
  type: 'checkpoint:approved',
  tick: 7,
  id: 'deploy',
  by: 'alice',
  note: 'looks right',
  cause: { kind: 'budget', tokens: 1200 },
} as unknown as AgateEvent;

describe('decisionSpan', () => {
  it('maps phase-gate status to gate.* attributes', () => {
    expect(decisionSpan(phaseChanged)).toEqual({
      name: 'agate.phase.changed',
      attributes: {
        'gate.understanding': 'met',
        'gate.change': 'met',
        'gate.verification': 'missing',
        'gate.readiness': 'blocked',
        'gate.files_read': 2,
        'gate.search_used': true,
        'gate.patches_proposed': 1,
        'gate.verify_used': false,
        'gate.no_progress_yet': false,
        'gate.steps_taken': 4,
      },
    });
  });

  it('maps any checkpoint:* event field by field', () => {
    expect(decisionSpan(checkpointApproved)).toEqual({
      name: 'agate.checkpoint.approved',
      attributes: {
        'checkpoint.id': 'deploy',
        'checkpoint.by': 'alice',
        'checkpoint.note': 'looks right',
        'checkpoint.cause': '{"kind":"budget","tokens":1200}',
      },
    });
  });

  it('maps knob changes, writing non-primitive values as JSON', () => {
    expect(
      decisionSpan({
        type: 'knob:changed',
        tick: 2,
        knob: 'limits',
        value: { depth: 3 },
        previous: undefined,
        by: 'model',
      }),
    ).toEqual({
      name: 'agate.knob.changed',
      attributes: { 'knob.name': 'limits', 'knob.value': '{"depth":3}', 'knob.by': 'model' },
    });
  });

  it('is undefined for events that are not guard decisions', () => {
    expect(decisionSpan({ type: 'tick:start', tick: 1 })).toBeUndefined();
    expect(decisionSpan({ type: 'exit:attempt', tick: 1 })).toBeUndefined();
  });
});

describe('attributeValue', () => {
  it('keeps primitives and uniform arrays, writes the rest as capped JSON', () => {
    expect(attributeValue('a')).toBe('a');
    expect(attributeValue(3)).toBe(3);
    expect(attributeValue(Number.NaN)).toBe('NaN');
    expect(attributeValue([1, 2])).toEqual([1, 2]);
    expect(attributeValue([1, 'a'])).toBe('[1,"a"]');
    expect(attributeValue({ a: 1 })).toBe('{"a":1}');
    expect(attributeValue(null)).toBeUndefined();
    const long = attributeValue({ text: 'x'.repeat(2_000) });
    expect(long).toMatch(/^\{"text":"x+…$/);
    expect(String(long).length).toBe(1_001);
  });
});

describe('SessionTracing on an event stream', () => {
  it('marks a refused tool call as an error and nests checkpoint and phase decisions in the tick', () => {
    const { tracer, exporter } = memoryTracing();
    let listener: EventListener = () => {};
    new SessionTracing(
      {
        id: 's1',
        context: undefined,
        subscribe: (l) => {
          listener = l;
          return () => {};
        },
      },
      { model: scriptedModel([]), telemetry: { tracer } },
    );
    const events: AgateEvent[] = [
      { type: 'run:start', sessionId: 's1', tick: 6 },
      { type: 'tick:start', tick: 7 },
      { type: 'model:request', tick: 7, messages: 2, tools: ['deploy'], ephemeral: 0 },
      {
        type: 'model:response',
        tick: 7,
        text: '',
        toolCalls: [{ toolCallId: 'c9', toolName: 'deploy', input: {} }],
        finishReason: 'tool-calls',
        usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 },
      },
      { type: 'tool:call', tick: 7, toolCallId: 'c9', toolName: 'deploy', input: {} },
      {
        type: 'tool:refused',
        tick: 7,
        toolCallId: 'c9',
        toolName: 'deploy',
        by: 'checkpoints',
        message: 'Checkpoint "deploy" is pending approval.',
      },
      {
        type: 'tool:result',
        tick: 7,
        toolCallId: 'c9',
        toolName: 'deploy',
        output: 'Checkpoint "deploy" is pending approval.',
        isError: true,
      },
      checkpointApproved,
      phaseChanged,
      { type: 'warning', tick: 7, code: 'slow', message: 'took long' },
      { type: 'run:end', status: 'paused', reason: 'waiting for alice', ticks: 1 },
    ];
    for (const event of events) listener(event);
    expect(formatSpanTree(exporter.getFinishedSpans())).toMatchInlineSnapshot(`
      "agate.run
        · agate.run.reason = "waiting for alice"
        · agate.run.start_tick = 6
        · agate.run.status = "paused"
        · agate.run.ticks = 1
        · agate.session.id = "s1"
        · gen_ai.conversation.id = "s1"
        · gen_ai.usage.input_tokens = 10
        · gen_ai.usage.output_tokens = 2
        agate.tick
          · agate.tick.decision = "paused"
          · agate.tick.number = 7
          ! agate.warning agate.warning.code="slow" agate.warning.message="took long"
          chat scripted (client)
            · agate.request.ephemeral = 0
            · agate.request.messages = 2
            · agate.request.tools = 1
            · gen_ai.conversation.id = "s1"
            · gen_ai.operation.name = "chat"
            · gen_ai.provider.name = "agate-scripted"
            · gen_ai.request.model = "scripted"
            · gen_ai.request.stream = true
            · gen_ai.response.finish_reasons = ["tool_call"]
            · gen_ai.usage.input_tokens = 10
            · gen_ai.usage.output_tokens = 2
          execute_tool deploy [ERROR: Checkpoint "deploy" is pending approval.]
            · agate.tool.refused_by = "checkpoints"
            · error.type = "refused"
            · gen_ai.operation.name = "execute_tool"
            · gen_ai.tool.call.id = "c9"
            · gen_ai.tool.name = "deploy"
            · gen_ai.tool.type = "function"
          agate.checkpoint.approved
            · checkpoint.by = "alice"
            · checkpoint.cause = "{\\"kind\\":\\"budget\\",\\"tokens\\":1200}"
            · checkpoint.id = "deploy"
            · checkpoint.note = "looks right"
          agate.phase.changed
            · gate.change = "met"
            · gate.files_read = 2
            · gate.no_progress_yet = false
            · gate.patches_proposed = 1
            · gate.readiness = "blocked"
            · gate.search_used = true
            · gate.steps_taken = 4
            · gate.understanding = "met"
            · gate.verification = "missing"
            · gate.verify_used = false"
    `);
  });
});
