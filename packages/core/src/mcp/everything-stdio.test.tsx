import { scaledLimit, scriptedModel } from '@agate/testing';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { createSession, McpServer, run, System, Timeline, User } from '../index.js';
import { alive, EVERYTHING } from './__fixtures__/servers.js';
import type { McpConnection } from './connection.js';

// The reference "everything" server over stdio, a new process per run (as in production).

function Agent(props: { prefix?: string; include?: string[]; timeoutMs?: number }) {
  return (
    <>
      <System>Use the tools.</System>
      <User>Go.</User>
      <McpServer
        name="everything"
        command={process.execPath}
        args={[EVERYTHING, 'stdio']}
        {...(props.prefix !== undefined ? { prefix: props.prefix } : {})}
        {...(props.include !== undefined ? { include: props.include } : {})}
        toolOptions={{ 'trigger-long-running-operation': { timeoutMs: props.timeoutMs ?? 10_000 } }}
      />
      <Timeline />
    </>
  );
}

function toolResults(timeline: readonly ModelMessage[]) {
  return timeline.flatMap((m) =>
    m.role === 'tool' && Array.isArray(m.content)
      ? m.content.flatMap((p) => (p.type === 'tool-result' ? [p] : []))
      : [],
  );
}

function outputValue(part: { output: unknown } | undefined): unknown {
  return (part?.output as { value?: unknown } | undefined)?.value;
}

describe('<McpServer> over stdio (server-everything)', () => {
  it('lists the tools, calls echo and get-sum, and closes the server when run() ends', async () => {
    let pid: number | undefined;
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: 'echo', input: { message: 'hello' } },
          { toolName: 'get-sum', input: { a: 2, b: 40 } },
        ],
      },
      'Done.',
    ]);
    const session = createSession(<Agent />, {
      model,
      onEvent: (event) => {
        if (event.type === 'tool:call') {
          pid = (session.resources.get('mcp:everything') as McpConnection | undefined)?.pid;
        }
      },
    });
    const result = await session.run();
    expect(result.status).toBe('completed');
    const offered = (model.calls[0]?.tools ?? []).map((t) => t.name);
    expect(offered).toEqual(expect.arrayContaining(['echo', 'get-sum', 'get-tiny-image']));
    // Registered after the handshake and announced with notifications/tools/list_changed.
    expect(offered).toContain('simulate-research-query');
    const [echo, sum] = toolResults(result.timeline);
    expect(JSON.stringify(echo?.output)).toContain('Echo: hello');
    expect(JSON.stringify(sum?.output)).toContain('42');
    expect(pid).toBeTypeOf('number');
    expect(alive(pid as number)).toBe(false);
    session.dispose();
  });

  it('converts an image result as the AI SDK does, and makes isError results tool errors', async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: 'get-tiny-image', input: {} },
          { toolName: 'get-sum', input: { a: 'two', b: 2 } },
        ],
      },
      'Done.',
    ]);
    const result = await run(<Agent />, { model });
    expect(result.status).toBe('completed');
    const [image, failed] = toolResults(result.timeline);
    expect(image?.output.type).toBe('content');
    const parts = outputValue(image) as { type: string; mediaType?: string }[];
    expect(parts.some((p) => p.type === 'file' && p.mediaType === 'image/png')).toBe(true);
    expect(failed?.output.type).toBe('error-text');
    expect(String(outputValue(failed))).toMatch(/get-sum.*failed.*expected number/s);
    // The model saw the image as a file part of the tool result.
    const second = JSON.stringify(model.calls[1]?.prompt);
    expect(second).toContain('image/png');
  });

  it('prefixes and filters the names; the call still reaches the server', async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'ev_echo', input: { message: 'x' } }] },
      'Done.',
    ]);
    const result = await run(<Agent prefix="ev" include={['echo', 'get-sum']} />, { model });
    expect(result.status).toBe('completed');
    expect((model.calls[0]?.tools ?? []).map((t) => t.name).sort()).toEqual([
      'ev_echo',
      'ev_get-sum',
    ]);
    expect(JSON.stringify(toolResults(result.timeline)[0]?.output)).toContain('Echo: x');
  });

  it('runs a long operation; one over its timeoutMs is a tool error and the run goes on', async () => {
    // The limit scales with the machine's measured speed: a fixed 400 ms against a 200 ms
    // operation failed on a loaded CI machine (the server's steps and the stdio round trips ran
    // late). The short operation is far inside the limit, the long one far outside it.
    const timeoutMs = scaledLimit(800);
    const longSeconds = Math.ceil(timeoutMs / 1_000) * 10;
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: 'trigger-long-running-operation', input: { duration: 0.05, steps: 1 } },
        ],
      },
      {
        toolCalls: [
          {
            toolName: 'trigger-long-running-operation',
            input: { duration: longSeconds, steps: 5 },
          },
        ],
      },
      { toolCalls: [{ toolName: 'echo', input: { message: 'still here' } }] },
      'Done.',
    ]);
    const result = await run(<Agent timeoutMs={timeoutMs} />, { model });
    const [done, late, echo] = toolResults(result.timeline);
    expect(result.status).toBe('completed');
    expect(JSON.stringify(done?.output)).toContain('Long running operation completed');
    expect(late?.output.type).toBe('error-text');
    expect(String(outputValue(late))).toContain(`timed out after ${timeoutMs} ms`);
    expect(JSON.stringify(echo?.output)).toContain('still here');
  });

  it('keeps the connection across tick() calls and ends it on session.close()', async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'echo', input: { message: '1' } }] },
      { toolCalls: [{ toolName: 'echo', input: { message: '2' } }] },
    ]);
    const session = createSession(<Agent />, { model });
    await session.tick();
    const first = session.resources.get('mcp:everything') as McpConnection;
    const pid = first.pid as number;
    await session.tick();
    expect(session.resources.get('mcp:everything')).toBe(first);
    expect(alive(pid)).toBe(true);
    await session.close();
    expect(alive(pid)).toBe(false);
    session.dispose();
  });

  it('keeps the mounted tools when a list change leaves the selected ones as they were', async () => {
    // The server announces tools/list_changed after the handshake (tools it registers then);
    // with only `echo` selected, the re-list at the next tick changes nothing mounted.
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'echo', input: { message: '1' } }] },
      { toolCalls: [{ toolName: 'echo', input: { message: '2' } }] },
      { toolCalls: [{ toolName: 'echo', input: { message: '3' } }] },
    ]);
    const session = createSession(<Agent include={['echo']} />, { model });
    try {
      await session.tick();
      const connection = session.resources.get('mcp:everything') as McpConnection;
      const tools = connection.tools;
      expect(Object.keys(tools ?? {})).toEqual(['echo']);
      await session.tick();
      await session.tick();
      expect(connection.tools).toBe(tools);
      expect(model.calls.map((call) => (call.tools ?? []).map((t) => t.name))).toEqual([
        ['echo'],
        ['echo'],
        ['echo'],
      ]);
      const texts = toolResults(session.state.timeline).map((part) => JSON.stringify(part.output));
      expect(texts).toEqual([
        expect.stringContaining('Echo: 1'),
        expect.stringContaining('Echo: 2'),
        expect.stringContaining('Echo: 3'),
      ]);
    } finally {
      await session.close();
      session.dispose();
    }
  });
});
