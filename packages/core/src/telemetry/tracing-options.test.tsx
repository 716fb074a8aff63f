import { AsyncLocalStorage } from 'node:async_hooks';
import { type ScriptedTurn, scriptedModel } from '@agate/testing';
import {
  type Context,
  type ContextManager,
  context,
  ROOT_CONTEXT,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  createMemoryStore,
  createSession,
  gate,
  type SessionOptions,
  System,
  Timeline,
  Tool,
  User,
  useGate,
} from '../index.js';
import { formatSpanTree, memoryTracing } from './__fixtures__/span-tree.js';
import { otelRegistered } from './otel-api.js';
import { TRACER_VERSION } from './session-tracing.js';

const edited = gate({
  description: 'Check the edit',
  instructions: 'You edited a file: check it, then clear this gate.',
  activateWhen: (tick) => tick.toolCalls.some((c) => c.toolName === 'edit'),
});

/** Which span was active inside the last `lookup` call (to see that tools run inside their span). */
let activeInLookup: string | undefined;

function Agent() {
  const g = useGate('edited', edited);
  return (
    <>
      <System>You look things up.</System>
      <User>What is the capital of France?</User>
      <Timeline />
      <Tool
        name="lookup"
        description="Look a fact up."
        input={z.object({ q: z.string() })}
        execute={({ q }) => {
          activeInLookup = trace.getActiveSpan()?.spanContext().spanId;
          return { answer: q === 'capital of France' ? 'Paris' : 'unknown' };
        }}
      />
      <Tool
        name="edit"
        description="Edit a file."
        input={z.object({ path: z.string() })}
        execute={() => 'edited'}
      />
      {g.element}
    </>
  );
}

const LOOKUP_THEN_ANSWER: ScriptedTurn[] = [
  { toolCalls: [{ toolName: 'lookup', input: { q: 'capital of France' }, toolCallId: 'c1' }] },
  { toolCalls: [{ toolName: 'no_such_tool', input: { secret: 'sk-123' }, toolCallId: 'c2' }] },
  { text: 'Paris.', reasoning: 'The lookup said Paris.' },
];

function start(turns: ScriptedTurn[], options: Partial<SessionOptions> = {}) {
  return createSession(<Agent />, {
    id: 'options-test',
    model: scriptedModel(turns),
    store: createMemoryStore(),
    ...options,
  });
}

/** Every attribute key of every span. */
const keysOf = (
  spans: ReturnType<ReturnType<typeof memoryTracing>['exporter']['getFinishedSpans']>,
) => new Set(spans.flatMap((s) => Object.keys(s.attributes)));

afterEach(() => {
  trace.disable();
  context.disable();
  vi.restoreAllMocks();
});

describe('with no tracer provider registered', () => {
  it('does not ask for a tracer: nothing could record (and the API need not load)', async () => {
    expect(otelRegistered()).toBe(false);
    const getTracer = vi.spyOn(trace, 'getTracer');
    const session = start(LOOKUP_THEN_ANSWER);
    expect((await session.run()).status).toBe('completed');
    expect(getTracer).not.toHaveBeenCalled();
  });

  it('nor after a provider was registered and disabled again (the API keeps its global object)', async () => {
    trace.setGlobalTracerProvider(memoryTracing().provider);
    context.setGlobalContextManager(new AsyncLocalContextManager());
    expect(otelRegistered()).toBe(true);
    trace.disable();
    context.disable();
    expect(otelRegistered()).toBe(false);
    const getTracer = vi.spyOn(trace, 'getTracer');
    expect((await start(LOOKUP_THEN_ANSWER).run()).status).toBe('completed');
    expect(getTracer).not.toHaveBeenCalled();
  });

  it('nor after an earlier run of this process loaded the API (a run given its own tracer)', async () => {
    // The API stays loaded for the process: the next run without a tracer must still ask none.
    const { provider } = memoryTracing();
    const traced = start(LOOKUP_THEN_ANSWER, {
      telemetry: { tracer: provider.getTracer('earlier') },
    });
    expect((await traced.run()).status).toBe('completed');
    expect(otelRegistered()).toBe(false);
    const getTracer = vi.spyOn(trace, 'getTracer');
    expect((await start(LOOKUP_THEN_ANSWER).run()).status).toBe('completed');
    expect(getTracer).not.toHaveBeenCalled();
  });

  it('given a tracer, asks it for one span per run and, as it does not record, starts no other', async () => {
    const started: string[] = [];
    const noop = trace.getTracer('probe');
    expect(noop.startSpan('probe').isRecording()).toBe(false);
    const counting: Tracer = {
      startSpan: (name, options, ctx) => {
        started.push(name);
        return noop.startSpan(name, options, ctx);
      },
      startActiveSpan: noop.startActiveSpan.bind(noop) as Tracer['startActiveSpan'],
    };
    const session = start(LOOKUP_THEN_ANSWER, { telemetry: { tracer: counting } });
    expect((await session.run()).status).toBe('completed');
    expect(started).toEqual(['invoke_agent Agent']);
  });

  it('with telemetry turned off, does not even ask', async () => {
    const getTracer = vi.spyOn(trace, 'getTracer');
    const session = start(LOOKUP_THEN_ANSWER, { telemetry: { enabled: false } });
    expect((await session.run()).status).toBe('completed');
    expect(getTracer).not.toHaveBeenCalled();
  });
});

describe('tracers', () => {
  it('uses the globally registered provider by default', async () => {
    const { provider, exporter } = memoryTracing();
    trace.setGlobalTracerProvider(provider);
    await start(LOOKUP_THEN_ANSWER).run();
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toContain('invoke_agent Agent');
    // The scope names this package at its version (what backends show as the instrumentation).
    expect(new Set(spans.map((s) => s.instrumentationScope))).toEqual(
      new Set([expect.objectContaining({ name: '@agate/core', version: TRACER_VERSION })]),
    );
    expect(TRACER_VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('uses a tracer passed in, not the global one', async () => {
    const global = memoryTracing();
    trace.setGlobalTracerProvider(global.provider);
    const mine = memoryTracing();
    await start(LOOKUP_THEN_ANSWER, { telemetry: { tracer: mine.tracer } }).run();
    expect(global.exporter.getFinishedSpans()).toEqual([]);
    expect(mine.exporter.getFinishedSpans().map((s) => s.name)).toContain('invoke_agent Agent');
  });

  it('a tracer that throws does not end the run', async () => {
    const { tracer } = memoryTracing();
    const faulty: Tracer = {
      startSpan: (name, options, ctx) => {
        if (name !== 'invoke_agent Agent') throw new Error('exporter down');
        return tracer.startSpan(name, options, ctx);
      },
      startActiveSpan: tracer.startActiveSpan.bind(tracer) as Tracer['startActiveSpan'],
    };
    const result = await start(LOOKUP_THEN_ANSWER, { telemetry: { tracer: faulty } }).run();
    expect(result.status).toBe('completed');
  });

  it("nests under the caller's active span, and runs tools inside their own span", async () => {
    context.setGlobalContextManager(new AsyncLocalContextManager());
    const { tracer, exporter } = memoryTracing();
    await tracer.startActiveSpan('handle request', async (outer) => {
      await start(LOOKUP_THEN_ANSWER, { telemetry: { tracer } }).run();
      outer.end();
    });
    const spans = exporter.getFinishedSpans();
    const byName = (name: string) => spans.find((s) => s.name === name);
    expect(byName('invoke_agent Agent')?.parentSpanContext?.spanId).toBe(
      byName('handle request')?.spanContext().spanId,
    );
    expect(activeInLookup).toBe(byName('execute_tool lookup')?.spanContext().spanId);
  });
});

describe('time to first chunk', () => {
  it('is measured on streamed calls that produce text, and not without streaming', async () => {
    const ttfc = async (streaming: boolean) => {
      const { tracer, exporter } = memoryTracing();
      await start(LOOKUP_THEN_ANSWER, { streaming, telemetry: { tracer } }).run();
      return exporter
        .getFinishedSpans()
        .filter((s) => s.name === 'chat scripted')
        .map((s) => typeof s.attributes['gen_ai.response.time_to_first_chunk']);
    };
    // Calls 1 and 2 only call tools (no chunk of text); call 3 streams its answer.
    expect(await ttfc(true)).toEqual(['undefined', 'undefined', 'number']);
    expect(await ttfc(false)).toEqual(['undefined', 'undefined', 'undefined']);
  });
});

describe('prompt and completion text', () => {
  it('are not recorded by default', async () => {
    const { tracer, exporter } = memoryTracing();
    await start(LOOKUP_THEN_ANSWER, { telemetry: { tracer } }).run();
    const spans = exporter.getFinishedSpans();
    const keys = keysOf(spans);
    for (const key of [
      'gen_ai.input.messages',
      'gen_ai.system_instructions',
      'gen_ai.output.messages',
      'gen_ai.tool.call.arguments',
      'gen_ai.tool.call.result',
    ]) {
      expect(keys).not.toContain(key);
    }
    // The unknown tool's error quotes nothing the model sent.
    const invalid = spans.find((s) => s.name === 'execute_tool no_such_tool');
    expect(invalid?.status.message).toBe(
      'Invalid tool call (unknown tool, or arguments that failed validation).',
    );
    expect(JSON.stringify(spans.map((s) => [s.attributes, s.status, s.events]))).not.toMatch(
      /Paris|France|sk-123/,
    );
  });

  it('are recorded when turned on, in the GenAI conventions’ message shapes', async () => {
    const { tracer, exporter } = memoryTracing();
    await start(LOOKUP_THEN_ANSWER, {
      telemetry: { tracer, recordInputs: true, recordOutputs: true },
    }).run();
    const spans = exporter.getFinishedSpans();
    const chats = spans.filter((s) => s.name === 'chat scripted');
    const json = (value: unknown) => JSON.parse(String(value)) as unknown;
    expect(json(chats[0]?.attributes['gen_ai.system_instructions'])).toEqual([
      { type: 'text', content: 'You look things up.' },
    ]);
    expect(json(chats[0]?.attributes['gen_ai.input.messages'])).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'What is the capital of France?' }] },
    ]);
    expect(json(chats[0]?.attributes['gen_ai.output.messages'])).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'tool_call', id: 'c1', name: 'lookup', arguments: { q: 'capital of France' } },
        ],
        finish_reason: 'tool_call',
      },
    ]);
    // The second request carries the first call and its result.
    expect(json(chats[1]?.attributes['gen_ai.input.messages'])).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'What is the capital of France?' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'tool_call', id: 'c1', name: 'lookup', arguments: { q: 'capital of France' } },
        ],
      },
      {
        role: 'tool',
        parts: [{ type: 'tool_call_response', id: 'c1', result: { answer: 'Paris' } }],
      },
    ]);
    expect(json(chats[2]?.attributes['gen_ai.output.messages'])).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', content: 'The lookup said Paris.' },
          { type: 'text', content: 'Paris.' },
        ],
        finish_reason: 'stop',
      },
    ]);
    const lookup = spans.find((s) => s.name === 'execute_tool lookup');
    expect(lookup?.attributes['gen_ai.tool.call.arguments']).toBe('{"q":"capital of France"}');
    expect(lookup?.attributes['gen_ai.tool.call.result']).toBe('{"answer":"Paris"}');
    const invalid = spans.find((s) => s.name === 'execute_tool no_such_tool');
    expect(invalid?.status.message).toMatch(/^Unknown tool "no_such_tool"/);
  });
});

describe('decisions between runs', () => {
  it('a gate a supervisor clears between runs is traced at the start of the next run', async () => {
    const { tracer, exporter } = memoryTracing();
    const session = start(
      [{ toolCalls: [{ toolName: 'edit', input: { path: 'a.txt' } }] }, 'Done.'],
      { telemetry: { tracer } },
    );
    expect((await session.run({ maxTicks: 1 })).status).toBe('blocked');
    session.clearGate('edited', 'supervisor');
    expect((await session.run()).status).toBe('completed');
    const runs = formatSpanTree(exporter.getFinishedSpans()).split(/\n(?=invoke_agent )/);
    expect(runs).toHaveLength(2);
    // An event on the second run's own span (before its first tick), not on a tick.
    expect(runs[1]).toMatch(
      /^invoke_agent Agent\n(?: {2}[·!] .*\n)* {2}! agate\.gate\.cleared .*agate\.gate\.by="supervisor"/,
    );
    expect(runs[0]).not.toContain('agate.gate.cleared');
  });
});

/** A context manager on AsyncLocalStorage (what the Node SDK registers), for the nesting test. */
class AsyncLocalContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();

  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.storage.run(ctx, () => fn.call(thisArg, ...args));
  }

  bind<T>(_ctx: Context, target: T): T {
    return target;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.storage.disable();
    return this;
  }
}
