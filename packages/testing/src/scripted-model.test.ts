import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { generateText, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ScriptExhaustedError, scriptedModel } from './scripted-model.js';

/** The smallest valid call options: one user message. */
function callOptions(text = 'hi', abortSignal?: AbortSignal): LanguageModelV4CallOptions {
  return {
    prompt: [{ role: 'user', content: [{ type: 'text', text }] }],
    ...(abortSignal ? { abortSignal } : {}),
  };
}

async function streamParts(
  model: ReturnType<typeof scriptedModel>,
  options = callOptions(),
): Promise<LanguageModelV4StreamPart[]> {
  const { stream } = await model.doStream(options);
  const parts: LanguageModelV4StreamPart[] = [];
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    parts.push(next.value);
  }
  return parts;
}

const weatherTools = {
  weather: tool({ inputSchema: z.object({ city: z.string() }) }),
};

describe('scriptedModel', () => {
  it('streams text as several deltas through streamText', async () => {
    const model = scriptedModel(['The sky is blue.']);
    const result = streamText({ model, prompt: 'Color of the sky?' });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('The sky is blue.');
    expect(await result.text).toBe('The sky is blue.');
    expect(await result.finishReason).toBe('stop');
  });

  it('streams reasoning before text', async () => {
    const model = scriptedModel([{ reasoning: 'Think first.', text: 'Done.' }]);
    const result = streamText({ model, prompt: 'go' });
    expect(await result.reasoningText).toBe('Think first.');
    expect(await result.text).toBe('Done.');
  });

  it('returns scripted tool calls with JSON inputs and generated ids', async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: 'weather', input: { city: 'Oslo' } },
          { toolName: 'weather', input: { city: 'Lima' }, toolCallId: 'mine' },
        ],
      },
    ]);
    const result = streamText({ model, prompt: 'weather?', tools: weatherTools });
    const calls = await result.toolCalls;
    expect(calls.map((c) => [c.toolName, c.input, c.toolCallId])).toEqual([
      ['weather', { city: 'Oslo' }, 'call-1'],
      ['weather', { city: 'Lima' }, 'mine'],
    ]);
    expect(await result.finishReason).toBe('tool-calls');
  });

  it('sends a string input as is, so a test can script malformed JSON', async () => {
    const model = scriptedModel([{ toolCalls: [{ toolName: 'weather', input: '{"city":' }] }]);
    const parts = await streamParts(model);
    const call = parts.find((p) => p.type === 'tool-call');
    expect(call).toMatchObject({ type: 'tool-call', toolName: 'weather', input: '{"city":' });

    // The AI SDK reports it as an invalid call carrying the raw text.
    const again = scriptedModel([{ toolCalls: [{ toolName: 'weather', input: '{"city":' }] }]);
    const result = streamText({ model: again, prompt: 'x', tools: weatherTools });
    const [sdkCall] = await result.toolCalls;
    expect(sdkCall).toMatchObject({ toolName: 'weather', input: '{"city":', invalid: true });
  });

  it('sends a call without input as an empty object', async () => {
    const parts = await streamParts(scriptedModel([{ toolCalls: [{ toolName: 'ping' }] }]));
    expect(parts.find((p) => p.type === 'tool-call')).toMatchObject({ input: '{}' });
  });

  it('estimates usage from characters by default and takes overrides', async () => {
    const prompt = 'x'.repeat(400);
    const estimated = streamText({ model: scriptedModel(['12345678']), prompt });
    const usage = await estimated.usage;
    // Output: 8 characters / 4. Input: the JSON of the prompt / 4, so a bit over 100.
    expect(usage.outputTokens).toBe(2);
    expect(usage.inputTokens).toBeGreaterThan(100);
    expect(usage.inputTokens).toBeLessThan(130);

    const fixed = streamText({
      model: scriptedModel([{ text: 'ok', usage: { inputTokens: 1000, outputTokens: 7 } }]),
      prompt,
    });
    expect(await fixed.usage).toMatchObject({
      inputTokens: 1000,
      outputTokens: 7,
      totalTokens: 1007,
    });
  });

  it('honors a scripted finishReason', async () => {
    const result = streamText({
      model: scriptedModel([{ text: 'cut', finishReason: 'length' }]),
      prompt: 'x',
    });
    expect(await result.finishReason).toBe('length');
  });

  it('fails the call with the scripted error', async () => {
    const failure = new Error('rate limited');
    const model = scriptedModel([{ error: failure }]);
    await expect(model.doStream(callOptions())).rejects.toBe(failure);
    await expect(
      generateText({ model: scriptedModel([{ error: failure }]), prompt: 'x', maxRetries: 0 }),
    ).rejects.toThrow('rate limited');
  });

  it('waits delayMs before replying and rejects with the abort reason when aborted', async () => {
    const controller = new AbortController();
    const model = scriptedModel([{ text: 'too late', delayMs: 60_000 }]);
    const pending = model.doStream(callOptions('hi', controller.signal));
    controller.abort(new Error('user pressed stop'));
    await expect(pending).rejects.toThrow('user pressed stop');
  });

  it('replies after delayMs when not aborted', async () => {
    const model = scriptedModel([{ text: 'eventually', delayMs: 5 }]);
    const { text } = await generateText({ model, prompt: 'x' });
    expect(text).toBe('eventually');
  });

  it('refuses to start when the signal is already aborted', async () => {
    const model = scriptedModel(['never']);
    await expect(model.doStream(callOptions('hi', AbortSignal.abort()))).rejects.toThrow();
  });

  it('throws ScriptExhaustedError with a message that says how to fix it', async () => {
    const model = scriptedModel(['only one']);
    await streamParts(model);
    const error = await Promise.resolve(model.doStream(callOptions())).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScriptExhaustedError);
    expect((error as Error).message).toBe(
      "scriptedModel: the script has 1 turn but the model was called a 2nd time. Add turns, or pass { whenExhausted: 'repeat-last' }.",
    );
    expect(new ScriptExhaustedError(0, 1).message).toContain('has 0 turns');
    expect(new ScriptExhaustedError(3, 13).message).toContain('a 13th time');
    expect(new ScriptExhaustedError(3, 22).message).toContain('a 22nd time');
  });

  it("repeats the last turn with whenExhausted: 'repeat-last'", async () => {
    const model = scriptedModel(['first', 'again'], { whenExhausted: 'repeat-last' });
    const texts: string[] = [];
    for (let i = 0; i < 4; i++) texts.push((await generateText({ model, prompt: 'x' })).text);
    expect(texts).toEqual(['first', 'again', 'again', 'again']);
    // An empty script has nothing to repeat.
    const empty = scriptedModel([], { whenExhausted: 'repeat-last' });
    await expect(empty.doStream(callOptions())).rejects.toBeInstanceOf(ScriptExhaustedError);
  });

  it('lets a function turn read the request', async () => {
    const model = scriptedModel([
      ({ index, options }) => {
        const last = options.prompt.at(-1);
        const part = last?.role === 'user' ? last.content[0] : undefined;
        return `call ${index} heard: ${part?.type === 'text' ? part.text : '?'}`;
      },
      () => ({ toolCalls: [{ toolName: 'weather', input: { city: 'Rome' } }] }),
    ]);
    const first = await generateText({ model, prompt: 'Marco' });
    expect(first.text).toBe('call 0 heard: Marco');
    const second = await generateText({ model, prompt: 'x', tools: weatherTools });
    expect(second.toolCalls.map((c) => c.input)).toEqual([{ city: 'Rome' }]);
  });

  it('records every request in .calls, in order', async () => {
    const model = scriptedModel(['a', 'b']);
    await generateText({ model, system: 'Be brief.', prompt: 'one' });
    await streamText({ model, prompt: 'two', tools: weatherTools }).consumeStream();
    expect(model.calls).toHaveLength(2);
    expect(model.calls[0]?.prompt[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(model.calls[1]?.tools?.map((t) => t.name)).toEqual(['weather']);
  });

  it('works with generateText: text, reasoning, tool calls and usage', async () => {
    const model = scriptedModel([
      {
        reasoning: 'hmm',
        text: 'Checking.',
        toolCalls: [{ toolName: 'weather', input: { city: 'Oslo' } }],
        usage: { inputTokens: 10, outputTokens: 3 },
      },
    ]);
    const result = await generateText({ model, prompt: 'x', tools: weatherTools });
    expect(result.text).toBe('Checking.');
    expect(result.reasoningText).toBe('hmm');
    expect(result.toolCalls.map((c) => [c.toolName, c.input])).toEqual([
      ['weather', { city: 'Oslo' }],
    ]);
    expect(result.finishReason).toBe('tool-calls');
    expect(result.usage).toMatchObject({ inputTokens: 10, outputTokens: 3, totalTokens: 13 });
  });
});
