import { scriptedModel } from '@agate/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AgateEvent, EventListener } from '../runtime/events.js';
import { formatSpanTree, memoryTracing } from './__fixtures__/span-tree.js';
import { attributeValue, decisionEvent } from './decision-events.js';
import { loadOtel } from './otel-api.js';
import { SessionTracing } from './session-tracing.js';
import { spanEvent } from './span-events.js';

const phaseChanged: AgateEvent = {
  type: 'phase:changed',
  tick: 3,
  status: {
    understanding: true,
    change: true,
    verification: false,
    readiness: false,
    evidence: {
      filesRead: 2,
      searchUsed: true,
      patchesProposed: 1,
      verifyUsed: false,
      noProgressYet: false,
      stepsTaken: 4,
    },
  },
};

const checkpointApproved: AgateEvent = {
  type: 'checkpoint:approved',
  tick: 7,
  id: 'deploy',
  by: 'alice',
  note: 'looks right',
};

describe('decisionEvent', () => {
  it('maps phase-gate status to agate.gate.* attributes', () => {
    expect(decisionEvent(phaseChanged)).toEqual({
      name: 'agate.phase.changed',
      attributes: {
        'agate.gate.understanding': true,
        'agate.gate.change': true,
        'agate.gate.verification': false,
        'agate.gate.readiness': false,
        'agate.gate.files_read': 2,
        'agate.gate.search_used': true,
        'agate.gate.patches_proposed': 1,
        'agate.gate.verify_used': false,
        'agate.gate.no_progress_yet': false,
        'agate.gate.steps_taken': 4,
      },
    });
    expect(
      decisionEvent({ type: 'phase:warning', tick: 9, kind: 'stall', text: 'Run the tests.' }),
    ).toEqual({
      name: 'agate.phase.warning',
      attributes: {
        'agate.phase.warning.kind': 'stall',
        'agate.phase.warning.text': 'Run the tests.',
      },
    });
  });

  it('maps checkpoint transitions to id, state, cause and who made them', () => {
    expect(decisionEvent(checkpointApproved)).toEqual({
      name: 'agate.checkpoint.approved',
      attributes: {
        'agate.checkpoint.id': 'deploy',
        'agate.checkpoint.state': 'approved',
        'agate.checkpoint.by': 'alice',
        'agate.checkpoint.note': 'looks right',
      },
    });
    expect(
      decisionEvent({
        type: 'checkpoint:rejected',
        tick: 7,
        id: 'deploy',
        by: 'bob',
        feedback: 'No.',
      })?.attributes,
    ).toEqual({
      'agate.checkpoint.id': 'deploy',
      'agate.checkpoint.state': 'unlocked',
      'agate.checkpoint.by': 'bob',
      'agate.checkpoint.feedback': 'No.',
    });
    const budget: AgateEvent = {
      type: 'checkpoint:pending',
      tick: 4,
      id: 'deploy',
      cause: 'budget',
      reason: 'open for 15 ticks',
    };
    expect(decisionEvent(budget)?.attributes).toEqual({
      'agate.checkpoint.id': 'deploy',
      'agate.checkpoint.state': 'pending',
      'agate.checkpoint.cause': 'budget',
      'agate.checkpoint.by': 'runtime',
      'agate.checkpoint.reason': 'open for 15 ticks',
    });
  });

  it("leaves the model's submit summary out unless outputs are recorded", () => {
    const submitted: AgateEvent = {
      type: 'checkpoint:submitted',
      tick: 4,
      id: 'deploy',
      summary: 'Deployed to staging.',
    };
    const pending: AgateEvent = {
      type: 'checkpoint:pending',
      tick: 4,
      id: 'deploy',
      cause: 'submit',
      reason: 'submitted: Deployed to staging.',
    };
    const base = {
      'agate.checkpoint.id': 'deploy',
      'agate.checkpoint.state': 'pending',
      'agate.checkpoint.cause': 'submit',
      'agate.checkpoint.by': 'model',
    };
    expect(decisionEvent(submitted)?.attributes).toEqual(base);
    expect(decisionEvent(pending)?.attributes).toEqual(base);
    expect(decisionEvent(submitted, { outputs: true })?.attributes).toEqual({
      ...base,
      'agate.checkpoint.summary': 'Deployed to staging.',
    });
    expect(decisionEvent(pending, { outputs: true })?.attributes).toEqual({
      ...base,
      'agate.checkpoint.reason': 'submitted: Deployed to staging.',
    });
  });

  it('maps knob changes, writing non-primitive values as JSON', () => {
    expect(
      decisionEvent({
        type: 'knob:changed',
        tick: 2,
        knob: 'limits',
        value: { depth: 3 },
        previous: undefined,
        by: 'model',
      }),
    ).toEqual({
      name: 'agate.knob.changed',
      attributes: {
        'agate.knob.name': 'limits',
        'agate.knob.value': '{"depth":3}',
        'agate.knob.by': 'model',
      },
    });
  });

  it('is undefined for events that are not guard decisions', () => {
    expect(decisionEvent({ type: 'tick:start', tick: 1 })).toBeUndefined();
    expect(decisionEvent({ type: 'exit:attempt', tick: 1 })).toBeUndefined();
    expect(decisionEvent({ type: 'todos:changed', tick: 1, todos: [] })).toBeUndefined();
  });
});

describe('spanEvent', () => {
  const off = { outputs: false };
  it('counts the todo list by status, without its text', () => {
    expect(
      spanEvent(
        {
          type: 'todos:changed',
          tick: 2,
          todos: [
            { content: 'Read', activeForm: 'Reading', status: 'completed' },
            { content: 'Fix', activeForm: 'Fixing', status: 'in_progress' },
            { content: 'Test', activeForm: 'Testing', status: 'pending' },
            { content: 'Ship', activeForm: 'Shipping', status: 'pending' },
          ],
        },
        off,
      ),
    ).toEqual({
      name: 'agate.todos.changed',
      on: 'tool',
      attributes: {
        'agate.todos.total': 4,
        'agate.todos.pending': 2,
        'agate.todos.in_progress': 1,
        'agate.todos.completed': 1,
      },
    });
  });

  it('records a step sign-off with the kinds of evidence, its text only with outputs', () => {
    const event: AgateEvent = {
      type: 'step:completed',
      tick: 5,
      step: 2,
      content: 'Run the tests',
      evidence: { verified: true, command: 'npm test', files: ['a.ts'], tick: 5 },
    };
    const attributes = {
      'agate.todo.step': 2,
      'agate.todo.evidence.verified': true,
      'agate.todo.evidence.kinds': ['command', 'files'],
    };
    expect(spanEvent(event, off)).toEqual({ name: 'agate.step.completed', on: 'tool', attributes });
    expect(spanEvent(event, { outputs: true })?.attributes).toEqual({
      ...attributes,
      'agate.todo.content': 'Run the tests',
    });
  });

  it('records context pruning on the tick', () => {
    expect(
      spanEvent(
        {
          type: 'context:pruned',
          tick: 8,
          maxTokens: 1000,
          tokensBefore: 1400,
          tokensAfter: 950,
          droppedMessages: 3,
          droppedElements: 1,
          recut: true,
        },
        off,
      ),
    ).toEqual({
      name: 'agate.context.pruned',
      on: 'tick',
      attributes: {
        'agate.context.max_tokens': 1000,
        'agate.context.tokens_before': 1400,
        'agate.context.tokens_after': 950,
        'agate.context.dropped_messages': 3,
        'agate.context.dropped_elements': 1,
        'agate.context.recut': true,
      },
    });
    expect(spanEvent({ type: 'tick:start', tick: 1 }, off)).toBeUndefined();
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
  // A run loads the OpenTelemetry API before its run:start (runtime/run-session.ts); here the
  // events are fed by hand.
  beforeAll(async () => {
    await loadOtel();
  });

  it('marks a refused tool call as an error and records checkpoint and phase decisions as events on the tick', () => {
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
      'Deployer',
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
      "invoke_agent Deployer
        · agate.run.reason = "waiting for alice"
        · agate.run.start_tick = 6
        · agate.run.status = "paused"
        · agate.run.ticks = 1
        · agate.session.id = "s1"
        · gen_ai.agent.name = "Deployer"
        · gen_ai.conversation.id = "s1"
        · gen_ai.operation.name = "invoke_agent"
        · gen_ai.provider.name = "agate-scripted"
        · gen_ai.request.model = "scripted"
        agate.tick
          · agate.tick.decision = "paused"
          · agate.tick.number = 7
          ! agate.checkpoint.approved agate.checkpoint.id="deploy" agate.checkpoint.state="approved" agate.checkpoint.by="alice" agate.checkpoint.note="looks right"
          ! agate.phase.changed agate.gate.understanding=true agate.gate.change=true agate.gate.verification=false agate.gate.readiness=false agate.gate.files_read=2 agate.gate.search_used=true agate.gate.patches_proposed=1 agate.gate.verify_used=false agate.gate.no_progress_yet=false agate.gate.steps_taken=4
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
            · gen_ai.tool.type = "function""
    `);
  });
});
