import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scaledLimit, scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AgateEvent,
  createSession,
  McpServer,
  McpServerError,
  Output,
  Todos,
} from '../index.js';
import { alive, fixture } from '../mcp/__fixtures__/servers.js';
import type { McpStdioServerProps } from '../mcp/mcp-server.js';
import { call, FaultAgent, toolOutputs } from './harness.js';

/** The tool results as text: an MCP result's text parts joined. */
function outputs(session: Parameters<typeof toolOutputs>[0]): string[] {
  return toolOutputs(session).map((value) =>
    Array.isArray(value)
      ? value.map((part) => String((part as { text?: unknown }).text ?? '')).join('\n')
      : String(value),
  );
}

// MCP servers that misbehave: each is a real child process (fixtures written with the official
// MCP SDK, or plain scripts); the run must end with a reason that names the server, its
// command and its stderr, keep the state, leave no process behind, and reconnect on run().

const FIXTURE = fixture('fixture-server.mjs');

function server(props: Partial<McpStdioServerProps> = {}) {
  return <McpServer name="fixture" command={process.execPath} args={[FIXTURE]} {...props} />;
}

/**
 * The pids of live processes whose command line has `word`. Other files running at the same
 * time start the same fixture servers (stdio-startup.test.tsx starts silent-server.mjs too), so
 * a test looks for the tag it gave its own server, not for the script's name.
 */
function processesOf(word: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes(word) && !line.includes(' ps '))
    .map((line) => Number.parseInt(line.trim(), 10));
}

describe('MCP server faults', () => {
  it('an MCP server that exits at startup', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agate-mcp-fault-'));
    const flag = join(dir, 'fail');
    await writeFile(flag, '');
    const props = { args: [fixture('exits-at-startup.mjs')], env: { FIXTURE_FAIL_FILE: flag } };
    const model = scriptedModel([call({ n: 1 }), 'Done.']);
    const session = createSession(<FaultAgent extra={server(props)} />, { model });
    const result = await session.run();
    expect(result.status).toBe('error');
    expect(result.error).toBeInstanceOf(McpServerError);
    expect(result.reason).toMatch(
      /^Tick 1, tool: MCP server "fixture" \(.*exits-at-startup\.mjs\)/,
    );
    expect(result.reason).toContain('exited during startup (exit code 3)');
    expect(result.reason).toContain('fatal: FIXTURE_TOKEN is not set');
    expect(model.calls).toHaveLength(0);
    expect(session.state.tick).toBe(0);
    // Once fixed, run() again connects and completes.
    await rm(dir, { recursive: true });
    expect((await session.run()).status).toBe('completed');
    session.dispose();
  });

  it('an MCP server killed in the middle of a call', async () => {
    let pid = 0;
    const model = scriptedModel([
      call({}, 'pid'),
      call({}, 'die'),
      // After run() again: a new server process answers.
      call({}, 'pid'),
      'Done.',
    ]);
    const session = createSession(<FaultAgent extra={server()} />, { model });
    const result = await session.run();
    pid = Number(outputs(session)[0]);
    expect(result.status).toBe('error');
    expect(result.reason).toMatch(/^Tick 3, tool: MCP server "fixture" .* exited \(exit code 9\)/s);
    expect(result.reason).toContain('fixture: out of memory (simulated)');
    // The cut-off call is a tool error the model will read, and tick 2 is kept.
    expect(session.state.tick).toBe(2);
    expect(String(outputs(session)[1])).toMatch(/Tool "die" failed: MCP server "fixture"/);
    expect(model.calls).toHaveLength(2);
    expect(alive(pid)).toBe(false);
    const again = await session.run();
    expect(again.status).toBe('completed');
    const newPid = Number(outputs(session)[2]);
    expect(newPid).not.toBe(pid);
    expect(alive(newPid)).toBe(false);
    session.dispose();
  });

  // The scaled handshake timeout and the 20 s the rest of the test has.
  it('an MCP server that never answers', { timeout: scaledLimit(2_000) + 20_000 }, async () => {
    const silent = fixture('silent-server.mjs');
    const tag = `tag-${randomUUID()}`;
    const model = scriptedModel(['Done.']);
    // The handshake timeout also covers the server's Node starting and writing its stderr
    // line, which a busy machine makes slower: the limit scales with its measured speed.
    const connectTimeoutMs = scaledLimit(2_000);
    const session = createSession(
      <FaultAgent extra={server({ args: [silent, tag], connectTimeoutMs })} />,
      { model },
    );
    const result = await session.run();
    expect(result.status).toBe('error');
    expect(result.reason).toContain(
      `did not answer the MCP handshake within ${connectTimeoutMs} ms`,
    );
    expect(result.reason).toContain('silent server up, answering nothing');
    expect(model.calls).toHaveLength(0);
    expect(processesOf(tag)).toEqual([]);
    session.dispose();
  });

  it('an MCP server that stops answering mid-run', async () => {
    // Scaled: the first call (pid) must answer inside the limit on a loaded machine too.
    const timeoutMs = scaledLimit(300);
    const model = scriptedModel([call({}, 'pid'), call({}, 'freeze'), 'Done.']);
    const session = createSession(<FaultAgent extra={server({ timeoutMs })} />, { model });
    const result = await session.run();
    const pid = Number(outputs(session)[0]);
    expect(result.status).toBe('error');
    expect(result.reason).toContain('stopped answering');
    expect(result.reason).toContain('fixture: stuck in a loop');
    expect(String(outputs(session)[1])).toContain(`Tool "freeze" timed out after ${timeoutMs} ms`);
    expect(session.state.tick).toBe(2);
    expect(alive(pid)).toBe(false);
    session.dispose();
  });

  it('an MCP tool call past its timeoutMs on a server that still answers', async () => {
    // Scaled, and the slow call ten times over it: the quick call's round trip fits on a loaded
    // machine too, and the slow one never does.
    const timeoutMs = scaledLimit(200);
    const model = scriptedModel([
      call({ ms: timeoutMs * 10 }, 'slow'),
      call({ ms: 1 }, 'slow'),
      'Done.',
    ]);
    const session = createSession(
      <FaultAgent extra={server({ toolOptions: { slow: { timeoutMs } } })} />,
      { model },
    );
    const result = await session.run();
    expect(result.status).toBe('completed');
    const [late, quick] = outputs(session);
    expect(String(late)).toContain(`Tool "slow" timed out after ${timeoutMs} ms`);
    expect(JSON.stringify(quick)).toContain('slept 1');
    session.dispose();
  });

  it('an MCP server that writes garbage to stdout', async () => {
    const model = scriptedModel([
      call({}, 'garbage'),
      {
        toolCalls: [
          { toolName: 'a_b', input: {} },
          { toolName: 'a_b_2', input: {} },
        ],
      },
      'Done.',
    ]);
    const session = createSession(<FaultAgent extra={server()} />, { model });
    const result = await session.run();
    expect(result.status).toBe('completed');
    // Junk lines and a reply to no request are skipped; the call's own answer arrives.
    expect(outputs(session)).toEqual(['answered anyway', 'dotted', 'plain']);
    session.dispose();
  });

  it('an MCP run aborted during the handshake', async () => {
    const silent = fixture('silent-server.mjs');
    const tag = `tag-${randomUUID()}`;
    const controller = new AbortController();
    const session = createSession(<FaultAgent extra={server({ args: [silent, tag] })} />, {
      model: scriptedModel(['Done.']),
    });
    setTimeout(() => controller.abort(), 300);
    const result = await session.run({ signal: controller.signal });
    expect(result.status).toBe('aborted');
    expect(processesOf(tag)).toEqual([]);
    session.dispose();
  });
});

describe('MCP tool names', () => {
  const HOSTILE = fixture('hostile-names-server.mjs');
  const hostile = (props: Partial<McpStdioServerProps> = {}) => (
    <McpServer name="hostile" command={process.execPath} args={[HOSTILE]} {...props} />
  );
  const warningsOf = (events: AgateEvent[]) =>
    events.flatMap((e) => (e.type === 'warning' ? [`${e.code}: ${e.message}`] : []));

  it('an MCP server that offers tools under the names of Agate tools and of the agent tools', async () => {
    const events: AgateEvent[] = [];
    const model = scriptedModel([
      call({ word: 'agate' }, 'lookup'),
      call({ answer: 'done' }, 'final_answer'),
    ]);
    const extra = (
      <>
        {hostile()}
        <Output schema={z.object({ answer: z.string() })} />
        <Todos />
      </>
    );
    const session = createSession(<FaultAgent extra={extra} />, {
      model,
      onEvent: (e) => events.push(e),
    });
    const result = await session.run();
    // The run goes on: <Output>'s final_answer ends it, the server's never runs.
    expect(result.status).toBe('completed');
    expect(result.output).toEqual({ answer: 'done' });
    expect(outputs(session).join('\n')).not.toContain('hijacked');
    expect(outputs(session)).toContain('agate: a thing');
    const offered = (model.calls[0]?.tools ?? []).map((t) => t.name).sort();
    expect(offered).toEqual(['complete_step', 'final_answer', 'lookup', 'step', 'todo_write']);
    const warnings = warningsOf(events).filter((w) => w.startsWith('mcp-tool-name-taken'));
    expect(warnings).toHaveLength(6);
    expect(warnings.join('\n')).toContain(
      `<McpServer name="hostile"> offers a tool named "final_answer", and the output family's own tool has that name: the server's tool is left out. To mount it, give the server a prefix (prefix="hostile" mounts it as "hostile_final_answer").`,
    );
    expect(warnings.join('\n')).toContain('"step", and a <Tool> has that name');
    for (const name of ['set_knob', 'submit_checkpoint', 'todo_write', 'complete_step']) {
      expect(warnings.join('\n')).toContain(`offers a tool named "${name}"`);
    }
    session.dispose();
  });

  it('an MCP server with those names mounted under a prefix', async () => {
    const events: AgateEvent[] = [];
    const model = scriptedModel([call({}, 'hostile_final_answer'), 'Done.']);
    const session = createSession(<FaultAgent extra={hostile({ prefix: 'hostile' })} />, {
      model,
      onEvent: (e) => events.push(e),
    });
    const result = await session.run();
    expect(result.status).toBe('completed');
    // Renamed, the server's tool is mounted and is the server's to answer.
    expect(outputs(session)).toEqual(['hijacked']);
    expect((model.calls[0]?.tools ?? []).map((t) => t.name)).toContain('hostile_step');
    expect(warningsOf(events).filter((w) => w.startsWith('mcp-tool-name-taken'))).toEqual([]);
    session.dispose();
  });

  it('two MCP servers that offer a tool of the same name', async () => {
    const events: AgateEvent[] = [];
    const model = scriptedModel([call({ word: 'x' }, 'lookup'), 'Done.']);
    const extra = (
      <>
        {hostile({ name: 'first', include: ['lookup'] })}
        {hostile({ name: 'second', include: ['lookup'] })}
      </>
    );
    const session = createSession(<FaultAgent extra={extra} />, {
      model,
      onEvent: (e) => events.push(e),
    });
    const result = await session.run();
    expect(result.status).toBe('completed');
    expect(outputs(session)).toEqual(['x: a thing']);
    expect(warningsOf(events).filter((w) => w.startsWith('mcp-tool-name-taken'))).toEqual([
      expect.stringContaining(
        '<McpServer name="second"> offers a tool named "lookup", and <McpServer name="first"> has that name',
      ),
    ]);
    session.dispose();
  });
});
