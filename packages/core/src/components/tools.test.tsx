import { renderContext, scriptedModel } from '@agate/testing';
import { SpanStatusCode } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { jsonSchema, type ToolSet, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSession, InvalidElementError, Timeline, Tools, User } from '../index.js';

const weather = tool({
  description: 'The weather in a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, sky: 'clear' }),
});

const tools: ToolSet = {
  weather,
  slow: tool({
    description: 'Never finishes',
    inputSchema: z.object({}),
    execute: (_input, { abortSignal }) =>
      new Promise((_resolve, reject) =>
        abortSignal?.addEventListener('abort', () => reject(abortSignal.reason)),
      ),
  }),
  big: tool({
    description: 'A lot of text',
    inputSchema: jsonSchema<{ n: number }>({
      type: 'object',
      properties: { n: { type: 'number' } },
      required: ['n'],
    }),
    execute: async ({ n }) => 'x'.repeat(n),
  }),
  deploy: tool({
    description: 'Deploys',
    inputSchema: z.object({ env: z.string() }),
    needsApproval: true,
    execute: async () => 'deployed',
  }),
  mcpStyle: tool({
    description: 'Answers like an MCP tool that failed',
    inputSchema: z.object({}),
    execute: async () => ({ isError: true, content: [{ type: 'text', text: 'quota exceeded' }] }),
  }),
};

function Agent(props: { options?: Parameters<typeof Tools>[0]['toolOptions'] }) {
  return (
    <>
      <User>Go.</User>
      <Tools tools={tools} {...(props.options ? { toolOptions: props.options } : {})} />
      <Timeline />
    </>
  );
}

describe('<Tools>', () => {
  it('mounts every tool of a ToolSet like a <Tool>, with toolOptions per name', () => {
    const context = renderContext(
      <Agent
        options={{
          weather: { description: 'Sky over a city', category: 'read', timeoutMs: 5_000 },
          big: { needsApproval: false },
        }}
      />,
    );
    const byName = new Map(context.tools.map((t) => [t.name, t]));
    expect([...byName.keys()]).toEqual(['weather', 'slow', 'big', 'deploy', 'mcpStyle']);
    expect(byName.get('weather')).toMatchObject({
      description: 'Sky over a city',
      guard: { category: 'read', timeoutMs: 5_000 },
    });
    // The AI SDK tool's own needsApproval is kept; toolOptions may set or override it.
    expect(byName.get('deploy')?.guard).toMatchObject({ needsApproval: true });
    expect(byName.get('big')?.guard).toMatchObject({ needsApproval: false });
  });

  it('validates input, times out, caps output and reports MCP-style error results', async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: 'weather', input: { town: 'Oslo' } },
          { toolName: 'weather', input: { city: 'Oslo' } },
          { toolName: 'slow', input: {} },
          { toolName: 'big', input: { n: 500 } },
          { toolName: 'mcpStyle', input: {} },
        ],
      },
      'Done.',
    ]);
    const session = createSession(<Agent options={{ slow: { timeoutMs: 50 } }} />, {
      model,
      maxToolOutputChars: 100,
    });
    const result = await session.run();
    expect(result.status).toBe('completed');
    const outputs = result.timeline.flatMap((m) =>
      m.role === 'tool' && Array.isArray(m.content)
        ? m.content.map((p) => (p.type === 'tool-result' ? p.output : null))
        : [],
    );
    expect(outputs[0]).toMatchObject({ type: 'error-text' });
    expect(JSON.stringify(outputs[0])).toContain('Invalid arguments for tool \\"weather\\"');
    expect(outputs[1]).toEqual({ type: 'json', value: { city: 'Oslo', sky: 'clear' } });
    expect(JSON.stringify(outputs[2])).toContain('timed out after 50 ms');
    expect(JSON.stringify(outputs[3])).toContain('Output truncated');
    expect(outputs[4]).toEqual({
      type: 'error-text',
      value: 'Tool "mcpStyle" failed: quota exceeded',
    });
  });

  it('traces each call as an execute_tool span, failed ones with an error status', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: 'weather', input: { city: 'Oslo' } },
          { toolName: 'mcpStyle', input: {} },
        ],
      },
      'Done.',
    ]);
    const result = await createSession(<Agent />, {
      model,
      telemetry: { tracer: provider.getTracer('tools-test') },
    }).run();
    expect(result.status).toBe('completed');
    const spans = exporter.getFinishedSpans().filter((s) => s.name.startsWith('execute_tool'));
    expect(spans.map((s) => s.name)).toEqual(['execute_tool weather', 'execute_tool mcpStyle']);
    expect(spans[0]?.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(spans[1]?.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('refuses toolOptions for a tool the set does not have', () => {
    expect(() => renderContext(<Agent options={{ wether: { timeoutMs: 1 } }} />)).toThrow(
      InvalidElementError,
    );
    expect(() => renderContext(<Agent options={{ wether: { timeoutMs: 1 } }} />)).toThrow(
      /toolOptions> names "wether", not in the tool set/,
    );
  });
});
