import { scriptedModel, startOpenAICompatibleServer } from '@agate/testing';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import * as conventions from '@opentelemetry/semantic-conventions/incubating';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Checkpoint,
  ContinueGate,
  createMemoryStore,
  createSession,
  gate,
  System,
  Timeline,
  Tool,
  User,
  useGate,
} from '../index.js';
import { memoryTracing } from './__fixtures__/span-tree.js';

/** Every attribute name the semantic conventions define (stable and incubating). */
const KNOWN = new Set(
  Object.entries(conventions)
    .filter(([name, value]) => name.startsWith('ATTR_') && typeof value === 'string')
    .map(([, value]) => value as string),
);
const OPERATIONS = new Set(
  Object.entries(conventions)
    .filter(([name]) => name.startsWith('GEN_AI_OPERATION_NAME_VALUE_'))
    .map(([, value]) => value as string),
);

/** A name is Agate's own (under `agate.`) or one the conventions define; nothing else. */
function unknownNames(spans: readonly ReadableSpan[]): string[] {
  const names = new Set<string>();
  for (const span of spans) {
    for (const key of Object.keys(span.attributes)) names.add(key);
    for (const event of span.events) {
      if (event.name !== 'exception' && !event.name.startsWith('agate.')) {
        names.add(`event ${event.name}`);
      }
      for (const key of Object.keys(event.attributes ?? {})) names.add(key);
    }
  }
  return [...names].filter((n) => !n.startsWith('agate.') && !KNOWN.has(n)).sort();
}

const verified = gate({
  description: 'Run the tests after an edit',
  instructions: 'Run the tests.',
  activateWhen: (tick) => tick.toolCalls.some((c) => c.toolName === 'edit'),
  clearWhen: (tick) => tick.toolCalls.some((c) => c.toolName === 'test'),
});

function Fixer() {
  const g = useGate('verified', verified);
  return (
    <>
      <System>You fix bugs.</System>
      <User>Fix it.</User>
      <Timeline />
      <Tool
        name="edit"
        description="Edit a file."
        input={z.object({ path: z.string() })}
        execute={({ path }) => `edited ${path}`}
      />
      <Tool
        name="test"
        description="Run the tests."
        input={z.object({})}
        execute={() => {
          throw new Error('1 failing');
        }}
      />
      <Checkpoint id="review" task="Edit, test, then submit." />
      <ContinueGate checkpointIntervalSteps={2} />
      {g.element}
    </>
  );
}

const FIX = [
  { toolCalls: [{ toolName: 'edit', input: { path: 'a.js' } }] },
  'Done.',
  {
    toolCalls: [
      { toolName: 'test', input: {} },
      { toolName: 'nope', input: {} },
    ],
  },
  {
    toolCalls: [
      { toolName: 'submit_checkpoint', input: { id: 'review', summary: 'Edited a.js.' } },
    ],
  },
];

describe('span names and attributes against @opentelemetry/semantic-conventions', () => {
  it('a run with gates, a refusal, a tool error, an invalid call and a checkpoint uses only convention names and agate.*', async () => {
    const tracing = memoryTracing();
    const session = createSession(<Fixer />, {
      model: scriptedModel(FIX, { modelId: 'm-1' }),
      store: createMemoryStore(),
      modelSettings: { temperature: 0.2, maxOutputTokens: 100, topP: 0.9, seed: 7 },
      telemetry: { tracer: tracing.tracer, recordInputs: true, recordOutputs: true },
    });
    const result = await session.run();
    expect(result.status).toBe('awaiting-approval');
    session.approve('review', { by: 'alice' });
    const spans = tracing.exporter.getFinishedSpans();

    expect(unknownNames(spans)).toEqual([]);
    for (const span of spans) {
      const operation = span.attributes['gen_ai.operation.name'];
      if (span.name === 'agate.tick') {
        expect(operation).toBeUndefined();
        continue;
      }
      // `{operation} {target}`, as the conventions name GenAI spans.
      expect(OPERATIONS.has(String(operation)), span.name).toBe(true);
      expect(span.name.startsWith(`${String(operation)} `), span.name).toBe(true);
    }
    const root = spans.find((s) => s.name === 'invoke_agent Fixer');
    expect(root?.attributes).toMatchObject({
      [conventions.ATTR_GEN_AI_OPERATION_NAME]:
        conventions.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
      [conventions.ATTR_GEN_AI_AGENT_NAME]: 'Fixer',
      [conventions.ATTR_GEN_AI_CONVERSATION_ID]: session.id,
    });
    // Usage only on the model calls, so a back end that adds spans up counts each token once.
    for (const span of spans) {
      const isChat = span.attributes['gen_ai.operation.name'] === 'chat';
      expect(span.attributes[conventions.ATTR_GEN_AI_USAGE_INPUT_TOKENS] !== undefined).toBe(
        isChat,
      );
      expect(span.kind).toBe(isChat ? SpanKind.CLIENT : SpanKind.INTERNAL);
    }
    const tools = spans.filter((s) => s.name.startsWith('execute_tool '));
    for (const tool of tools) {
      expect(tool.attributes[conventions.ATTR_GEN_AI_TOOL_CALL_ID]).toEqual(expect.any(String));
    }
    expect(
      tools.find((t) => t.name === 'execute_tool edit')?.attributes[
        conventions.ATTR_GEN_AI_TOOL_DESCRIPTION
      ],
    ).toBe('Edit a file.');
    // Decisions are events on ticks: no span for them.
    expect(
      spans.map((s) => s.name).filter((n) => n.startsWith('agate.') && n !== 'agate.tick'),
    ).toEqual([]);
  });

  it('a model behind HTTP: server.address and server.port, response id and model', async () => {
    const server = await startOpenAICompatibleServer(['Hello.']);
    try {
      const tracing = memoryTracing();
      const model = createOpenAICompatible({ name: 'loopback', baseURL: server.baseURL })(
        'local-model',
      );
      await createSession(
        <>
          <User>Hi</User>
          <Timeline />
        </>,
        { model, name: 'greeter', telemetry: { tracer: tracing.tracer } },
      ).run();
      const spans = tracing.exporter.getFinishedSpans();
      expect(unknownNames(spans)).toEqual([]);
      const chat = spans.find((s) => s.name === 'chat local-model');
      const port = Number(new URL(server.baseURL).port);
      expect(chat?.attributes).toMatchObject({
        [conventions.ATTR_SERVER_ADDRESS]: '127.0.0.1',
        [conventions.ATTR_SERVER_PORT]: port,
        [conventions.ATTR_GEN_AI_PROVIDER_NAME]: 'loopback',
        [conventions.ATTR_GEN_AI_REQUEST_MODEL]: 'local-model',
        [conventions.ATTR_GEN_AI_RESPONSE_MODEL]: 'local-model',
        [conventions.ATTR_GEN_AI_RESPONSE_ID]: expect.stringMatching(/^chatcmpl-/),
      });
      expect(spans.some((s) => s.name === 'invoke_agent greeter')).toBe(true);
    } finally {
      await server.close();
    }
  });
});
