import { type AgateEvent, run, System, Timeline, Tool, User } from '@agate/core';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, isStepCount, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  type ChatCompletionMessage,
  type OpenAICompatibleServer,
  type ServerScript,
  startOpenAICompatibleServer,
} from './openai-compatible-server.js';

const servers: OpenAICompatibleServer[] = [];

async function serve(script: ServerScript): Promise<OpenAICompatibleServer> {
  const server = await startOpenAICompatibleServer(script);
  servers.push(server);
  return server;
}

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

function localModel(server: OpenAICompatibleServer) {
  return createOpenAICompatible({ name: 'local', baseURL: server.baseURL, includeUsage: true })(
    'local-model',
  );
}

function WeatherAgent(props: { onCall: (input: { city: string; unit: 'c' | 'f' }) => void }) {
  return (
    <>
      <System>You answer weather questions. Use the get_weather tool.</System>
      <User>How warm is it in Paris?</User>
      <Timeline />
      <Tool
        name="get_weather"
        description="Current temperature of a city"
        input={z.object({ city: z.string(), unit: z.enum(['c', 'f']) })}
        execute={(input) => {
          props.onCall(input);
          return { city: input.city, temperature: 18, unit: input.unit };
        }}
      />
    </>
  );
}

function messagesWithRole(messages: ChatCompletionMessage[], role: ChatCompletionMessage['role']) {
  return messages.filter((m) => m.role === role);
}

describe('Agate run() through @ai-sdk/openai-compatible against the loopback server', () => {
  let server: OpenAICompatibleServer;
  beforeAll(async () => {
    server = await serve([
      {
        toolCalls: [
          { toolName: 'get_weather', input: { city: 'Paris', unit: 'c' }, toolCallId: 'call_w1' },
        ],
        usage: { promptTokens: 40, completionTokens: 12 },
      },
      {
        text: 'It is 18 degrees Celsius in Paris right now.',
        usage: { promptTokens: 70, completionTokens: 11 },
      },
    ]);
  });

  it('executes a streamed tool call, sends the result back and completes', async () => {
    const calls: unknown[] = [];
    const events: AgateEvent[] = [];
    const result = await run(<WeatherAgent onCall={(input) => calls.push(input)} />, {
      model: localModel(server),
      // Streams only when asked: by default a plain onEvent listener does not make it stream.
      streaming: true,
      onEvent: (event) => events.push(event),
    });

    expect(result.status).toBe('completed');
    expect(result.ticks).toBe(2);
    expect(result.text).toBe('It is 18 degrees Celsius in Paris right now.');
    // The arguments arrived in 8-character fragments and were reassembled and validated.
    expect(calls).toEqual([{ city: 'Paris', unit: 'c' }]);
    expect(result.usage).toEqual({ inputTokens: 110, outputTokens: 23, totalTokens: 133 });

    const deltas = events.flatMap((e) =>
      e.type === 'model:delta' && e.kind === 'text' ? [e.delta] : [],
    );
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(result.text);
    expect(events.filter((e) => e.type === 'model:delta').every((e) => e.tick === 2)).toBe(true);

    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests;
    expect(first?.model).toBe('local-model');
    expect(first?.stream).toBe(true);
    expect(first?.stream_options).toEqual({ include_usage: true });
    // Tools go out as JSON schema.
    expect(first?.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Current temperature of a city',
          parameters: expect.objectContaining({
            type: 'object',
            properties: {
              city: { type: 'string' },
              unit: { type: 'string', enum: ['c', 'f'] },
            },
            required: ['city', 'unit'],
          }),
        },
      },
    ]);
    expect(first?.messages.map((m) => m.role)).toEqual(['system', 'user']);

    // The second request carries the assistant's call and the runtime's tool result.
    const messages = second?.messages ?? [];
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(messagesWithRole(messages, 'assistant')[0]?.tool_calls).toEqual([
      {
        id: 'call_w1',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"c"}' },
      },
    ]);
    const toolMessage = messagesWithRole(messages, 'tool')[0];
    expect(toolMessage?.tool_call_id).toBe('call_w1');
    expect(JSON.parse(String(toolMessage?.content))).toEqual({
      city: 'Paris',
      temperature: 18,
      unit: 'c',
    });
  });
});

describe('tool calls and errors over the wire', () => {
  it('runs two calls from one reply in order and answers malformed arguments with a tool error', async () => {
    const server = await serve([
      {
        toolCalls: [
          { toolName: 'get_weather', input: { city: 'Oslo', unit: 'c' } },
          { toolName: 'get_weather', input: '{"city": "Rome", "unit": ' },
        ],
      },
      'Oslo is 18 degrees; I could not read the Rome call.',
    ]);
    const calls: unknown[] = [];
    const result = await run(<WeatherAgent onCall={(input) => calls.push(input)} />, {
      model: localModel(server),
    });

    expect(result.status).toBe('completed');
    expect(calls).toEqual([{ city: 'Oslo', unit: 'c' }]);
    const toolMessages = messagesWithRole(server.requests[1]?.messages ?? [], 'tool');
    expect(toolMessages).toHaveLength(2);
    expect(JSON.parse(String(toolMessages[0]?.content))).toMatchObject({ city: 'Oslo' });
    expect(String(toolMessages[1]?.content)).toContain('Invalid arguments for tool "get_weather"');
  });

  it('ends the run with status error and the provider message on HTTP 500', async () => {
    const server = await serve([
      { error: { status: 500, message: 'The model server ran out of memory.' } },
    ]);
    const result = await run(<WeatherAgent onCall={() => {}} />, {
      model: localModel(server),
      modelSettings: { maxRetries: 0 },
    });

    expect(result.status).toBe('error');
    expect(result.reason).toContain('The model server ran out of memory.');
    expect(result.error?.name).toBe('ModelCallError');
    expect(result.ticks).toBe(0);
    expect(server.requests).toHaveLength(1);
  });

  it('serves non-streaming completions with tool calls (generateText tool loop)', async () => {
    const server = await serve((request) =>
      request.index === 0
        ? { toolCalls: [{ toolName: 'add', input: { a: 2, b: 3 } }] }
        : { text: 'The sum is 5.' },
    );
    const result = await generateText({
      model: localModel(server),
      prompt: 'What is 2 + 3?',
      tools: {
        add: tool({
          inputSchema: z.object({ a: z.number(), b: z.number() }),
          execute: ({ a, b }) => a + b,
        }),
      },
      stopWhen: isStepCount(3),
    });

    expect(result.text).toBe('The sum is 5.');
    expect(server.requests.map((r) => r.stream)).toEqual([undefined, undefined]);
    expect(messagesWithRole(server.requests[1]?.messages ?? [], 'tool')[0]?.content).toBe('5');
    expect(result.totalUsage.inputTokens).toBeGreaterThan(0);
  });
});

describe('the server itself', () => {
  it('answers unknown routes with 404 and an exhausted script with a clear 500', async () => {
    const server = await serve(['only turn']);
    const missing = await fetch(`${server.baseURL}/models`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { type: 'not_found' } });

    const post = () =>
      fetch(`${server.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
      });
    const ok = await post();
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({
      choices: [{ message: { role: 'assistant', content: 'only turn' }, finish_reason: 'stop' }],
    });
    const exhausted = await post();
    expect(exhausted.status).toBe(500);
    expect(((await exhausted.json()) as { error: { message: string } }).error.message).toBe(
      'openai-compatible test server: the script has 1 turn but request #2 arrived. Add turns to the script.',
    );
  });

  it('streams tool-call deltas in the OpenAI format with a final usage chunk', async () => {
    const server = await serve([
      {
        text: 'Checking.',
        toolCalls: [{ toolName: 'lookup', input: { q: 'agate stones' }, toolCallId: 'c1' }],
      },
    ]);
    const response = await fetch(`${server.baseURL}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({
        model: 'm',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        stream_options: { include_usage: true },
      }),
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const lines = (await response.text()).split('\n\n').filter((l) => l !== '');
    expect(lines.at(-1)).toBe('data: [DONE]');
    const chunks = lines.slice(0, -1).map((l) => JSON.parse(l.replace(/^data: /, '')));
    const toolDeltas = chunks.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []);
    expect(toolDeltas[0]).toEqual({
      index: 0,
      id: 'c1',
      type: 'function',
      function: { name: 'lookup', arguments: '' },
    });
    expect(toolDeltas.length).toBeGreaterThan(2);
    expect(toolDeltas.map((d) => d.function.arguments).join('')).toBe('{"q":"agate stones"}');
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { total_tokens: expect.any(Number) },
    });
  });
});

describe('until: an answer held until the test lets it go', () => {
  it('answers once the promise settles; a client that goes away while held ends the wait', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = await serve([
      { text: 'Held.', until: held },
      { text: 'never sent', until: new Promise(() => {}) },
      'Still serving.',
      // A hold that fails still lets the answer go: the test's wait ended either way.
      () => ({ text: 'Released by a rejection.', until: Promise.reject(new Error('gave up')) }),
    ]);
    let answered = false;
    const first = generateText({ model: localModel(server), prompt: 'Hi' }).then((result) => {
      answered = true;
      return result;
    });
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    // Nothing arrives while it is held (an answer not held comes back within milliseconds).
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(answered).toBe(false);
    release();
    expect((await first).text).toBe('Held.');

    const abort = new AbortController();
    const second = generateText({
      model: localModel(server),
      prompt: 'Hi',
      abortSignal: abort.signal,
      maxRetries: 0,
    });
    await vi.waitFor(() => expect(server.requests).toHaveLength(2));
    abort.abort();
    await expect(second).rejects.toThrow();
    // The held answer never blocks the next request.
    expect((await generateText({ model: localModel(server), prompt: 'Hi' })).text).toBe(
      'Still serving.',
    );
    expect((await generateText({ model: localModel(server), prompt: 'Hi' })).text).toBe(
      'Released by a rejection.',
    );
  });
});
