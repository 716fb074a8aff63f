import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { scriptedModel } from '@agate/testing';
import type { ModelMessage } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer, run, Timeline, User } from '../index.js';
import { EVERYTHING } from './__fixtures__/servers.js';

// The reference "everything" server over HTTP on loopback, started once for the file: its
// Streamable HTTP mode, and its old SSE mode (which <McpServer url> falls back to).

const servers: ChildProcess[] = [];
let httpUrl = '';
let sseUrl = '';

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function start(mode: 'streamableHttp' | 'sse'): Promise<number> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  servers.push(child);
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening|running on/i.test(output)) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`everything ${mode} exited (${code}): ${output}`)),
    );
  });
  return port;
}

beforeAll(async () => {
  const [http, sse] = await Promise.all([start('streamableHttp'), start('sse')]);
  httpUrl = `http://127.0.0.1:${http}/mcp`;
  sseUrl = `http://127.0.0.1:${sse}/sse`;
}, 30_000);
afterAll(() => {
  for (const child of servers) child.kill('SIGKILL');
});

function outputs(timeline: readonly ModelMessage[]): string[] {
  return timeline.flatMap((m) =>
    m.role === 'tool' && Array.isArray(m.content)
      ? m.content.map((p) => JSON.stringify(p.type === 'tool-result' ? p.output : p))
      : [],
  );
}

const sockets = () =>
  process.getActiveResourcesInfo().filter((kind) => kind === 'TCPSocketWrap').length;

describe('<McpServer url> (server-everything over HTTP)', () => {
  it('calls echo, get-sum and an image tool over Streamable HTTP, and leaves no socket open', async () => {
    const before = sockets();
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: 'echo', input: { message: 'over http' } },
          { toolName: 'get-sum', input: { a: 1, b: 2 } },
          { toolName: 'get-tiny-image', input: {} },
          { toolName: 'get-sum', input: { a: 'x' } },
        ],
      },
      'Done.',
    ]);
    const result = await run(
      <>
        <User>Go.</User>
        <McpServer name="docs" url={httpUrl} headers={{ 'x-agate-test': '1' }} />
        <Timeline />
      </>,
      { model },
    );
    expect(result.status).toBe('completed');
    const [echo, sum, image, failed] = outputs(result.timeline);
    expect(echo).toContain('Echo: over http');
    expect(sum).toContain('3');
    expect(image).toContain('image/png');
    expect(failed).toContain('error-text');
    expect(sockets()).toBe(before);
  });

  it('falls back to the SSE transport for a server without Streamable HTTP', async () => {
    const before = sockets();
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'old_echo', input: { message: 'over sse' } }] },
      'Done.',
    ]);
    const result = await run(
      <>
        <User>Go.</User>
        <McpServer name="old" url={sseUrl} prefix="old" include={['echo']} />
        <Timeline />
      </>,
      { model },
    );
    expect(result.status).toBe('completed');
    expect(outputs(result.timeline)[0]).toContain('Echo: over sse');
    expect(sockets()).toBe(before);
  });

  it('ends the run with an error naming the URL when the server dies mid-run', async () => {
    const port = await start('streamableHttp');
    const child = servers.at(-1) as ChildProcess;
    const url = `http://127.0.0.1:${port}/mcp`;
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'echo', input: { message: 'one' } }] },
      { toolCalls: [{ toolName: 'echo', input: { message: 'two' } }] },
      'Done.',
    ]);
    const result = await run(
      <>
        <User>Go.</User>
        <McpServer name="web" url={url} include={['echo']} />
        <Timeline />
      </>,
      {
        model,
        onEvent: (event) => {
          if (event.type === 'tool:result' && event.tick === 1) child.kill('SIGKILL');
        },
      },
    );
    expect(result.status).toBe('error');
    // Found at tick 2's re-listing, when the server's list-change notice arrived before the
    // kill, or else by tick 2's call: that call is then a tool error naming the server, kept
    // with tick 2, and tick 3 ends before its model call (as for a stdio server killed mid-call).
    const at = new RegExp(
      `^Tick (2|3), tool: MCP server "web" \\(${url.replace(/\./g, '\\.')}\\) failed`,
    ).exec(result.reason ?? '');
    expect(at, result.reason).not.toBeNull();
    expect(result.reason).toContain('Check that the server answers at that URL');
    const seen = outputs(result.timeline);
    expect(seen[0]).toContain('Echo: one');
    if (at?.[1] === '3') {
      expect(seen[1]).toMatch(/Tool \\"echo\\" failed: MCP server \\"web\\"/);
      expect(model.calls).toHaveLength(2);
    } else {
      expect(seen).toHaveLength(1);
      expect(model.calls).toHaveLength(1);
    }
  });

  it('names the URL when nothing listens there', async () => {
    const port = await freePort();
    const result = await run(
      <>
        <User>Go.</User>
        <McpServer name="gone" url={`http://127.0.0.1:${port}/mcp`} />
      </>,
      { model: scriptedModel(['Done.']) },
    );
    expect(result.status).toBe('error');
    expect(result.reason).toMatch(
      new RegExp(`MCP server "gone" \\(http://127\\.0\\.0\\.1:${port}/mcp\\) failed to connect`),
    );
  });
});
