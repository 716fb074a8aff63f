/**
 * Issue 10 (spans) and issue 12 item 1 (stream only when someone reads the stream) read as an
 * outside checker would, through the public API only: an in-memory span exporter on a tracer of
 * the user's own (the documented `telemetry.tracer` option) or the global provider, and a
 * scripted model whose `doGenerate` and `doStream` calls are counted.
 */
import {
  type AgateEvent,
  Checkpoint,
  createMemoryStore,
  createSession,
  type SessionOptions,
  System,
  Timeline,
  Tool,
  User,
} from '@agate/core';
import { scriptedModel } from '@agate/testing';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';

const SECRET_PROMPT = 'PROMPT-SECRET-4711';
const SECRET_REPLY = 'REPLY-SECRET-0815';

function Agent() {
  return (
    <>
      <System>You look things up.</System>
      <User>{`Find ${SECRET_PROMPT}.`}</User>
      <Timeline />
      <Tool
        name="lookup"
        description="Look a key up"
        input={z.object({ key: z.string() })}
        execute={({ key }) => `value of ${key}`}
      />
      <Tool
        name="broken"
        description="Always fails"
        input={z.object({})}
        execute={() => {
          throw new Error('backend down');
        }}
      />
      <Checkpoint id="T-1" task="Look the key up" />
    </>
  );
}

function Small() {
  return (
    <>
      <System>You look things up.</System>
      <User>Find k.</User>
      <Timeline />
      <Tool
        name="lookup"
        description="Look a key up"
        input={z.object({ key: z.string() })}
        execute={({ key }) => `value of ${key}`}
      />
    </>
  );
}

/** Tick 1: a good call and a failed call; tick 2: a submit, then a call the pending checkpoint refuses. */
const script = () =>
  scriptedModel(
    [
      {
        text: `Looking. ${SECRET_REPLY}`,
        toolCalls: [
          { toolName: 'lookup', input: { key: 'a' }, toolCallId: 'c-look' },
          { toolName: 'broken', input: {}, toolCallId: 'c-broken' },
        ],
        usage: { inputTokens: 100, outputTokens: 10 },
      },
      {
        toolCalls: [
          { toolName: 'submit_checkpoint', input: { id: 'T-1', summary: 'Looked it up.' } },
          { toolName: 'lookup', input: { key: 'b' }, toolCallId: 'c-refused' },
        ],
        usage: { inputTokens: 150, outputTokens: 12 },
      },
    ],
    { modelId: 'test-model' },
  );

function traced(options: Partial<SessionOptions> = {}) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer('mine'), ...options };
}

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;

describe('issue 10: spans', () => {
  it('nest run → tick → chat / execute_tool with the GenAI attributes, errors on failed and refused calls', async () => {
    const { exporter, tracer } = traced();
    const result = await createSession(<Agent />, {
      model: script(),
      id: 'span-acc',
      telemetry: { tracer },
      store: createMemoryStore(),
    }).run();
    expect(result.status).toBe('awaiting-approval');

    const spans = exporter.getFinishedSpans();
    const named = (name: string) => spans.filter((s) => s.name === name);
    const [run] = named('invoke_agent Agent');
    expect(run).toBeDefined();
    if (!run) return;
    expect(parentOf(run)).toBeUndefined();
    expect(run.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'Agent',
      'gen_ai.conversation.id': 'span-acc',
      'agate.session.id': 'span-acc',
      'agate.run.status': 'awaiting-approval',
      'agate.run.ticks': 2,
    });
    expect(String(run.attributes['agate.run.reason'])).toContain('T-1');
    // Usage is counted once, on the model calls; backends add those up.
    expect(run.attributes['gen_ai.usage.input_tokens']).toBeUndefined();

    const ticks = named('agate.tick');
    expect(ticks.map((t) => t.attributes['agate.tick.number'])).toEqual([1, 2]);
    for (const tick of ticks) expect(parentOf(tick)).toBe(idOf(run));
    expect(ticks[0]?.attributes['agate.tick.decision']).toBe('continue');
    expect(ticks[1]?.attributes['agate.tick.decision']).toBe('awaiting-approval');

    const chats = spans.filter((s) => s.name.startsWith('chat '));
    expect(chats.map((c) => c.name)).toEqual(['chat test-model', 'chat test-model']);
    expect(chats.map(parentOf)).toEqual(ticks.map(idOf));
    expect(chats[0]?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': expect.any(String),
      'gen_ai.request.model': 'test-model',
      'gen_ai.response.model': 'test-model',
      'gen_ai.response.id': 'response-1',
      'gen_ai.usage.input_tokens': 100,
      'gen_ai.usage.output_tokens': 10,
    });
    expect(chats[1]?.attributes['gen_ai.response.id']).toBe('response-2');
    expect(chats[0]?.attributes['gen_ai.response.finish_reasons']).toEqual(['tool_call']);
    expect(chats[1]?.attributes['gen_ai.usage.input_tokens']).toBe(150);

    const tools = spans.filter((s) => s.name.startsWith('execute_tool '));
    const byCall = (id: string) => tools.find((t) => t.attributes['gen_ai.tool.call.id'] === id);
    const ok = byCall('c-look');
    const failed = byCall('c-broken');
    const refused = byCall('c-refused');
    expect(ok?.name).toBe('execute_tool lookup');
    expect(ok?.attributes['gen_ai.tool.name']).toBe('lookup');
    expect(ok?.attributes['gen_ai.tool.description']).toBe('Look a key up');
    expect(ok?.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(failed?.name).toBe('execute_tool broken');
    expect(failed?.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'backend down' });
    expect(refused?.name).toBe('execute_tool lookup');
    expect(refused?.status.code).toBe(SpanStatusCode.ERROR);
    expect(refused?.attributes['error.type']).toBe('refused');
    expect([ok, failed].map((s) => s && parentOf(s))).toEqual([idOf(ticks[0]!), idOf(ticks[0]!)]);
    expect(refused && parentOf(refused)).toBe(idOf(ticks[1]!));

    // Privacy default: no prompt or completion text anywhere on any span.
    const everything = JSON.stringify(spans.map((s) => [s.attributes, s.events]));
    expect(everything).not.toContain(SECRET_PROMPT);
    expect(everything).not.toContain(SECRET_REPLY);
    expect(everything).not.toContain('value of a');
  });

  it('records prompt and completion text only with recordInputs / recordOutputs', async () => {
    const { exporter, tracer } = traced();
    await createSession(<Agent />, {
      model: script(),
      telemetry: { tracer, recordInputs: true, recordOutputs: true },
      store: createMemoryStore(),
    }).run();
    const chats = exporter.getFinishedSpans().filter((s) => s.name.startsWith('chat '));
    expect(String(chats[0]?.attributes['gen_ai.input.messages'])).toContain(SECRET_PROMPT);
    expect(String(chats[0]?.attributes['gen_ai.output.messages'])).toContain(SECRET_REPLY);
    const look = exporter
      .getFinishedSpans()
      .find((s) => s.attributes['gen_ai.tool.call.id'] === 'c-look');
    expect(String(look?.attributes['gen_ai.tool.call.result'])).toContain('value of a');
  });

  it('a failed model call: the chat span, the tick and the run carry the error', async () => {
    const { exporter, tracer } = traced();
    const result = await createSession(<Small />, {
      model: scriptedModel([{ error: new Error('socket hang up') }]),
      telemetry: { tracer },
    }).run();
    expect(result.status).toBe('error');
    const spans = exporter.getFinishedSpans();
    const chat = spans.find((s) => s.name.startsWith('chat '));
    const run = spans.find((s) => s.name === 'invoke_agent Small');
    expect(chat?.status.code).toBe(SpanStatusCode.ERROR);
    expect(chat?.status.message).toContain('socket hang up');
    expect(chat?.events.map((e) => e.name)).toContain('exception');
    expect(run?.status.code).toBe(SpanStatusCode.ERROR);
    expect(run?.attributes['agate.run.status']).toBe('error');
    expect(spans.find((s) => s.name === 'agate.tick')?.attributes['agate.tick.decision']).toBe(
      'error',
    );
  });

  it('the same span tree whether the call streams or not', async () => {
    const shape = async (streaming: boolean) => {
      const { exporter, tracer } = traced();
      await createSession(<Agent />, {
        model: script(),
        id: 'same-tree',
        streaming,
        telemetry: { tracer },
        store: createMemoryStore(),
      }).run();
      const spans = exporter.getFinishedSpans();
      const names = new Map(spans.map((s) => [idOf(s), s.name]));
      return spans.map((s) => {
        // Only streamed calls have a first chunk to time (documented as such).
        const {
          'gen_ai.request.stream': _stream,
          'gen_ai.response.time_to_first_chunk': _first,
          ...attributes
        } = s.attributes;
        const stream = [
          s.attributes['gen_ai.request.stream'],
          s.attributes['gen_ai.response.time_to_first_chunk'] !== undefined,
        ];
        return { name: s.name, parent: names.get(parentOf(s) ?? ''), attributes, stream };
      });
    };
    const streamed = await shape(true);
    const generated = await shape(false);
    // Both chat spans say how the call was made; only streamed text has a first chunk to time.
    const chatsOf = (spans: typeof streamed) =>
      spans.filter((s) => s.name.startsWith('chat ')).map((s) => s.stream);
    expect(chatsOf(streamed)).toEqual([
      [true, true],
      [true, false], // tick 2 streamed no text, only tool calls
    ]);
    expect(chatsOf(generated)).toEqual([
      [false, false],
      [false, false],
    ]);
    const strip = (spans: typeof streamed) => spans.map(({ stream: _s, ...rest }) => rest);
    expect(strip(streamed)).toEqual(strip(generated));
  });

  describe('the global provider', () => {
    afterEach(() => trace.disable());
    it('is used when no tracer is given, and enabled: false turns it off', async () => {
      const exporter = new InMemorySpanExporter();
      trace.setGlobalTracerProvider(
        new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
      );
      const model = scriptedModel(['Hello.']);
      await createSession(<Small />, { model }).run();
      expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual([
        'chat scripted',
        'agate.tick',
        'invoke_agent Small',
      ]);
      exporter.reset();
      await createSession(<Small />, {
        model: scriptedModel(['Hello.']),
        telemetry: { enabled: false },
      }).run();
      expect(exporter.getFinishedSpans()).toEqual([]);
    });
  });
});

describe('issue 12.1: stream only when someone reads the stream', () => {
  const turns = () =>
    scriptedModel([
      { text: 'First I look.', toolCalls: [{ toolName: 'lookup', input: { key: 'k' } }] },
      { text: 'The value is known now.', usage: { inputTokens: 7, outputTokens: 3 } },
    ]);
  const comparable = (events: AgateEvent[]) =>
    events.filter((e) => e.type !== 'model:delta').map((e) => JSON.stringify(e));

  async function runWith(how: 'nobody' | 'onEvent' | 'subscriber' | 'streaming: true') {
    const model = turns();
    const all: AgateEvent[] = [];
    const deltas: string[] = [];
    const session = createSession(<Small />, {
      model,
      id: 'same',
      ...(how === 'streaming: true' ? { streaming: true } : {}),
      ...(how === 'onEvent' ? { onEvent: (e: AgateEvent) => void all.push(e) } : {}),
    });
    if (how === 'subscriber') {
      session.subscribe(
        (e) => {
          if (e.type === 'model:delta') deltas.push(e.delta);
        },
        { types: ['model:delta'] },
      );
    }
    const result = await session.run();
    return {
      model,
      result,
      state: session.state,
      deltas,
      generate: model.doGenerateCalls.length,
      stream: model.doStreamCalls.length,
    };
  }

  it('with no model:delta subscriber (even with onEvent) the model is called with doGenerate', async () => {
    for (const how of ['nobody', 'onEvent'] as const) {
      const { generate, stream, result } = await runWith(how);
      expect(result.status).toBe('completed');
      expect({ how, generate, stream }).toEqual({ how, generate: 2, stream: 0 });
    }
  });

  it('a model:delta subscriber or streaming: true makes it doStream; the deltas arrive in pieces', async () => {
    const sub = await runWith('subscriber');
    expect([sub.generate, sub.stream]).toEqual([0, 2]);
    expect(sub.deltas.length).toBeGreaterThan(2);
    expect(sub.deltas.join('')).toBe('First I look.The value is known now.');
    const forced = await runWith('streaming: true');
    expect([forced.generate, forced.stream]).toEqual([0, 2]);
  });

  it('results, state and events other than deltas are identical both ways', async () => {
    const plain = await runWith('nobody');
    const streamed = await runWith('subscriber');
    const strip = (r: typeof plain.result) => ({ ...r, events: comparable(r.events) });
    expect(strip(streamed.result)).toEqual(strip(plain.result));
    // Wall time spent in ticks is the one field that differs from run to run.
    const timeless = (state: typeof plain.state) => ({
      ...state,
      guards: { ...state.guards, continue: { ...state.guards.continue, elapsedMs: 0 } },
    });
    expect(streamed.state.guards.continue.elapsedMs).toBeGreaterThan(0);
    expect(timeless(streamed.state)).toEqual(timeless(plain.state));
  });

  it('decided per call: a delta subscriber added after tick 1 streams tick 2; unsubscribing stops it', async () => {
    const model = scriptedModel([{ toolCalls: [{ toolName: 'lookup', input: { key: 'k' } }] }], {
      whenExhausted: 'repeat-last',
    });
    const { exporter, tracer } = traced();
    const session = createSession(<Small />, { model, maxTicks: 3, telemetry: { tracer } });
    let unsubscribe: (() => void) | undefined;
    session.subscribe((e) => {
      if (e.type !== 'tick:end') return;
      if (e.tick === 1) unsubscribe = session.subscribe(() => {}, { types: ['model:delta'] });
      if (e.tick === 2) unsubscribe?.();
    });
    await session.run();
    const kinds = [
      ...model.doGenerateCalls.map(() => 'generate'),
      ...model.doStreamCalls.map(() => 'stream'),
    ];
    expect(kinds.sort()).toEqual(['generate', 'generate', 'stream']);
    expect(model.doStreamCalls[0]?.prompt).toEqual(model.calls[1]?.prompt);
    // The chat span says how each call was actually made.
    const chats = exporter.getFinishedSpans().filter((span) => span.name.startsWith('chat '));
    expect(chats.map((span) => span.attributes['gen_ai.request.stream'])).toEqual([
      false,
      true,
      false,
    ]);
  });

  it('without streaming an onEvent listener still gets the whole text of each reply as one delta', async () => {
    const { result } = await runWith('onEvent');
    const deltas = result.events.filter((e) => e.type === 'model:delta');
    expect(deltas.map((e) => e.type === 'model:delta' && e.delta)).toEqual([
      'First I look.',
      'The value is known now.',
    ]);
  });
});
