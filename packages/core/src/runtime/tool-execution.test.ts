import { jsonSchema } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolExecuteContext } from '../components/tool-context.js';
import type { CompiledTool } from '../renderer/compiled-context.js';
import { executeToolCall, toJsonValue } from './tool-execution.js';

const context = (signal = new AbortController().signal): ToolExecuteContext => ({
  toolCallId: 'c1',
  abortSignal: signal,
  tick: 1,
  messages: [],
});

function tools(...list: CompiledTool[]): ReadonlyMap<string, CompiledTool> {
  return new Map(list.map((t) => [t.name, t]));
}

const echo: CompiledTool = {
  name: 'echo',
  inputSchema: z.object({ text: z.string() }),
  execute: ((input: { text: string }) => input.text) as CompiledTool['execute'],
  source: 'component',
};

const call = (toolName: string, input: unknown) => ({ toolCallId: 'c1', toolName, input });

describe('executeToolCall', () => {
  it('returns the output of a valid call', async () => {
    expect(await executeToolCall(call('echo', { text: 'hi' }), tools(echo), context())).toEqual({
      toolCallId: 'c1',
      toolName: 'echo',
      isError: false,
      output: 'hi',
    });
  });

  it('says when no tools are available at all', async () => {
    const result = await executeToolCall(call('echo', {}), tools(), context());
    expect(result).toMatchObject({
      isError: true,
      output: 'Unknown tool "echo". No tools are available now.',
    });
  });

  it('refuses a tool without execute', async () => {
    const { execute: _execute, ...bare } = echo;
    const result = await executeToolCall(call('echo', { text: 'x' }), tools(bare), context());
    expect(result.output).toBe('Tool "echo" has no execute function, so it cannot be called.');
  });

  it('spells out the expected schema without the JSON Schema dialect line', async () => {
    const result = await executeToolCall(call('echo', { text: 1 }), tools(echo), context());
    expect(result.isError).toBe(true);
    expect(result.output).toContain(
      'Expected arguments matching: {"type":"object","properties":{"text":{"type":"string"}}',
    );
    expect(result.output).not.toContain('$schema');
  });

  it('validates against an AI SDK jsonSchema() with a validator', async () => {
    const strict: CompiledTool = {
      ...echo,
      inputSchema: jsonSchema<{ n: number }>(
        { type: 'object', properties: { n: { type: 'number' } } },
        {
          validate: (value) =>
            typeof (value as { n?: unknown }).n === 'number'
              ? { success: true, value: value as { n: number } }
              : { success: false, error: new Error('n must be a number') },
        },
      ),
    };
    const bad = await executeToolCall(call('echo', { n: 'x' }), tools(strict), context());
    expect(bad.output).toBe('Invalid arguments for tool "echo": n must be a number');
    const good = await executeToolCall(call('echo', { n: 1 }), tools(strict), context());
    expect(good.isError).toBe(false);
  });

  it('rethrows when execute fails because the run was aborted', async () => {
    const controller = new AbortController();
    const slow: CompiledTool = {
      ...echo,
      execute: (() => {
        controller.abort(new Error('stop'));
        throw new Error('interrupted');
      }) as CompiledTool['execute'],
    };
    await expect(
      executeToolCall(call('echo', { text: 'x' }), tools(slow), context(controller.signal)),
    ).rejects.toThrow('stop');
  });
});

describe('toJsonValue', () => {
  it('keeps outputs JSON', () => {
    expect(toJsonValue(undefined)).toBeNull();
    expect(toJsonValue('text')).toBe('text');
    expect(toJsonValue({ a: undefined, b: [undefined], d: new Date(0) })).toEqual({
      b: [null],
      d: '1970-01-01T00:00:00.000Z',
    });
    expect(toJsonValue(10n)).toMatch(/^\[unserializable tool output: /);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(toJsonValue(cyclic)).toMatch(/^\[unserializable tool output: /);
  });
});
