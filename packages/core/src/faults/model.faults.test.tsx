import {
  type OpenAICompatibleServer,
  scaledLimit,
  startOpenAICompatibleServer,
} from '@agate/testing';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterAll, describe, expect, it } from 'vitest';
import { createSession, ModelCallError, type ModelSettings } from '../index.js';
import { memoryTracing } from '../telemetry/__fixtures__/span-tree.js';
import { FaultAgent, faultyModel, partialText, step, streamOf, watch } from './harness.js';

const servers: OpenAICompatibleServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** A real HTTP model (`@ai-sdk/openai-compatible`) against the loopback server. */
async function httpModel(script: Parameters<typeof startOpenAICompatibleServer>[0]) {
  const server = await startOpenAICompatibleServer(script);
  servers.push(server);
  const model = createOpenAICompatible({ name: 'loopback', baseURL: server.baseURL })('m');
  return { server, model };
}

/** Fast retries: the server asks the AI SDK to wait 1 ms instead of its 2 s default. */
const retryAfter = { 'retry-after-ms': '1' };

describe('model faults', () => {
  it('a model object whose provider config throws when traced for its server address', async () => {
    // A custom model whose config is hostile to inspection: tracing must not end the run.
    const model = Object.assign(faultyModel([step(1), 'Done.'], {}), {
      config: {
        get baseURL(): string {
          throw new Error('config is not readable');
        },
        url: () => {
          throw new Error('no URL');
        },
      },
    });
    const tracing = memoryTracing();
    const session = createSession(<FaultAgent />, {
      model,
      streaming: true,
      telemetry: { tracer: tracing.tracer },
    });
    const result = await session.run();
    expect(result.status).toBe('completed');
    const chats = tracing.exporter.getFinishedSpans().filter((s) => s.name.startsWith('chat '));
    expect(chats).toHaveLength(2);
    for (const chat of chats) expect(chat.attributes['server.address']).toBeUndefined();
    expect(result.ticks).toBe(2);
  });

  it('a model that throws', async () => {
    const model = faultyModel([step(1), 'Done.'], {
      1: async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:11434');
      },
    });
    const session = createSession(<FaultAgent />, {
      model,
      streaming: true,
      modelSettings: { maxRetries: 0 },
    });
    const w = watch(session);

    const failed = await session.run();
    expect(failed.status).toBe('error');
    expect(failed.reason).toBe(
      'Tick 2, model call: The model call failed: connect ECONNREFUSED 127.0.0.1:11434',
    );
    expect(failed.error).toBeInstanceOf(ModelCallError);
    expect(failed.error).toMatchObject({ tick: 2, step: 'model call' });
    w.expectStateAfterTick(1);

    const again = await session.run();
    expect(again.status).toBe('completed');
    expect(session.state.tick).toBe(2);
  });

  it('a model stream that errors mid-stream', async () => {
    const model = faultyModel([step(1), 'Done.'], {
      1: async () => ({
        stream: streamOf(partialText('I will now '), new Error('socket hang up')),
      }),
    });
    const session = createSession(<FaultAgent />, { model, streaming: true });
    const w = watch(session);

    const failed = await session.run();
    expect(failed.status).toBe('error');
    expect(failed.reason).toBe('Tick 2, model call: The model call failed: socket hang up');
    // The half-answer was streamed to observers but is not in the state.
    expect(w.ofType('model:delta').map((e) => e.delta)).toContain('I will now ');
    expect(session.state.text).toBe('');
    w.expectStateAfterTick(1);

    expect((await session.run()).status).toBe('completed');
  });

  it('a model stream that sends an error part', async () => {
    const model = faultyModel([step(1), 'Done.'], {
      1: async () => ({
        stream: streamOf([
          ...partialText('Thinking'),
          { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
        ]),
      }),
    });
    const session = createSession(<FaultAgent />, { model, streaming: true });
    const w = watch(session);

    const failed = await session.run();
    expect(failed.status).toBe('error');
    expect(failed.reason).toBe('Tick 2, model call: The model call failed: Overloaded');
    w.expectStateAfterTick(1);
    expect((await session.run()).status).toBe('completed');
  });

  it('a model that hangs, ignoring the abort signal, when the run is aborted', async () => {
    let release: (() => void) | undefined;
    const model = faultyModel([step(1), 'Done.'], {
      // Never answers and never looks at its abort signal.
      1: () => new Promise((resolve) => (release = () => resolve({ stream: streamOf([]) }))),
    });
    const session = createSession(<FaultAgent />, { model, streaming: true });
    const w = watch(session);
    const controller = new AbortController();
    session.subscribe((e) => {
      if (e.type === 'model:request' && e.tick === 2) setTimeout(() => controller.abort(), 20);
    });

    const started = performance.now();
    const aborted = await session.run({ signal: controller.signal });
    expect(performance.now() - started).toBeLessThan(scaledLimit(1_000));
    expect(aborted.status).toBe('aborted');
    expect(aborted.reason).toMatch(/^The run was aborted.*Call run\(\) again to resume/);
    w.expectStateAfterTick(1);

    release?.();
    expect((await session.run()).status).toBe('completed');
    expect(session.state.tick).toBe(2);
  });

  it('a provider that answers 429 once, then succeeds', async () => {
    const { server, model } = await httpModel([
      { toolCalls: [{ toolName: 'step', input: { n: 1 } }] },
      { error: { status: 429, message: 'Rate limit reached', headers: retryAfter } },
      'Done.',
    ]);
    const session = createSession(<FaultAgent />, { model });
    const result = await session.run();
    expect(result.status).toBe('completed');
    expect(result.reason).toBeUndefined();
    expect(server.requests).toHaveLength(3);
    expect(session.state.tick).toBe(2);
  });

  it('a provider that answers 500 for good', async () => {
    let down = true;
    const { server, model } = await httpModel(({ index }) =>
      index === 0
        ? { toolCalls: [{ toolName: 'step', input: { n: 1 } }] }
        : down
          ? { error: { status: 500, message: 'The model server crashed', headers: retryAfter } }
          : 'Done.',
    );
    const modelSettings: ModelSettings = { maxRetries: 2 };
    const session = createSession(<FaultAgent />, { model, modelSettings });
    const w = watch(session);

    const failed = await session.run();
    expect(failed.status).toBe('error');
    expect(failed.reason).toBe(
      'Tick 2, model call: The model call failed: The model server crashed (HTTP 500, gave up after 3 attempts)',
    );
    expect(failed.error).toMatchObject({ statusCode: 500, retryable: true, attempts: 3 });
    expect(server.requests).toHaveLength(4);
    w.expectStateAfterTick(1);

    down = false;
    expect((await session.run()).status).toBe('completed');
  });

  it('a provider that answers 503 for good, without streaming', async () => {
    const { server, model } = await httpModel([
      { error: { status: 503, message: 'Service Unavailable', headers: retryAfter } },
      { error: { status: 503, message: 'Service Unavailable', headers: retryAfter } },
      'Done.',
    ]);
    const session = createSession(<FaultAgent />, {
      model,
      streaming: false,
      modelSettings: { maxRetries: 1 },
    });
    const failed = await session.run();
    expect(failed.status).toBe('error');
    expect(failed.reason).toBe(
      'Tick 1, model call: The model call failed: Service Unavailable (HTTP 503, gave up after 2 attempts)',
    );
    expect(server.requests.map((r) => r.stream ?? false)).toEqual([false, false]);
    expect(session.state.tick).toBe(0);
    expect((await session.run()).status).toBe('completed');
  });

  it('a provider that answers 400 (not retryable)', async () => {
    const { server, model } = await httpModel([
      { error: { status: 400, message: 'context length exceeded', type: 'invalid_request_error' } },
      'Done.',
    ]);
    const session = createSession(<FaultAgent />, { model });
    const failed = await session.run();
    expect(failed.status).toBe('error');
    expect(failed.reason).toBe(
      'Tick 1, model call: The model call failed: context length exceeded (HTTP 400, not retryable)',
    );
    expect(failed.error).toMatchObject({ statusCode: 400, retryable: false, attempts: 1 });
    expect(server.requests).toHaveLength(1);
    expect(session.state.tick).toBe(0);
    expect((await session.run()).status).toBe('completed');
  });

  it('a provider connection cut mid-stream', async () => {
    const { model } = await httpModel([
      { toolCalls: [{ toolName: 'step', input: { n: 1 } }] },
      { text: 'Here is a long answer that never finishes', disconnectAfterChunks: 3 },
      'Done.',
    ]);
    const session = createSession(<FaultAgent />, { model, streaming: true });
    const w = watch(session);

    const failed = await session.run();
    expect(failed.status).toBe('error');
    expect(failed.reason).toBe(
      'Tick 2, model call: The model call failed: Failed to process successful response: ' +
        'terminated: other side closed (the answer broke off after HTTP 200)',
    );
    expect(failed.error).toBeInstanceOf(ModelCallError);
    w.expectStateAfterTick(1);
    expect((await session.run()).status).toBe('completed');
  });
});
