import { readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '@agate/cli';
import type { AgateEvent } from '@agate/core';
import { createPrinter, workspaceTracker } from '@agate/example-kit';
import {
  type ChatCompletionMessage,
  type OpenAICompatibleServer,
  scriptedModel,
  startOpenAICompatibleServer,
} from '@agate/testing';
import { afterAll, afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { runFileAgent } from './agent.js';
import { decideNextStep, type SeenToolCall } from './offline-model.js';
import { ProviderConfigError, selectProvider } from './provider.js';
import { createWorkspace, resolveInside } from './workspace.js';

const { workspace, cleanup } = workspaceTracker(createWorkspace);
afterEach(cleanup);

describe('the file agent, offline', () => {
  it('tries to finish before writing SUMMARY.md, is refused by the summary gate, then writes it from the notes', async () => {
    const root = await workspace();
    const provider = selectProvider({});
    expect(provider.kind).toBe('scripted');
    expect(provider.description).toContain('AGATE_BASE_URL');

    const printed: string[] = [];
    const result = await runFileAgent({
      model: provider.model,
      root,
      onEvent: createPrinter((t) => printed.push(t)),
    });

    expect(result.status).toBe('completed');
    expect(result.ticks).toBe(5);
    expect(result.gates).toEqual({ summary: 'inactive' });
    const summary = await readFile(join(root, 'SUMMARY.md'), 'utf8');
    expect(summary).toContain('## Planning meeting (notes/2026-11-18-planning.md)');
    expect(summary).toContain('- Next: persistence and resumable runs.');
    expect(summary).not.toContain('README');
    const output = printed.join('');
    expect(output).toContain(
      '── tick 3 ──\n  model: I have read both notes, so the task is done.\n  exit refused: Gate "summary" was deferred, now active again (refusal 1 of 5): SUMMARY.md must be written before finishing.',
    );
    expect(output).toContain('── tick 4 ──\n  → write_file {"path":"SUMMARY.md"');
    expect(output).toContain('← write_file: Wrote SUMMARY.md');
    expect(output).toContain('── tick 5 ──\n  model: Done: SUMMARY.md summarizes 2 notes.');
  });

  it('refuses paths outside the workspace with a tool error the model reads', async () => {
    const root = await workspace();
    const outside = await workspace();
    await writeFile(join(outside, 'secret.txt'), 'secret');
    await symlink(outside, join(root, 'link'));
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: 'read_file', input: { path: '../secret.txt' } },
          { toolName: 'read_file', input: { path: join(outside, 'secret.txt') } },
          { toolName: 'read_file', input: { path: 'link/secret.txt' } },
          { toolName: 'write_file', input: { path: 'notes/../../escape.md', content: 'x' } },
        ],
      },
      'I cannot leave the workspace.',
    ]);
    const events: AgateEvent[] = [];
    const result = await runFileAgent({ model, root, maxTicks: 2, onEvent: (e) => events.push(e) });

    // Giving up without SUMMARY.md is refused by the summary gate: blocked, not completed.
    expect(result.status).toBe('blocked');
    expect(result.reason).toContain('maxTicks (2) reached while');
    const results = events.flatMap((e) => (e.type === 'tool:result' ? [e] : []));
    expect(results.map((r) => r.isError)).toEqual([true, true, true, true]);
    expect(String(results[0]?.output)).toBe(
      'Tool "read_file" failed: Path "../secret.txt" is outside the workspace. Use paths relative to the workspace root, such as "notes/a.md".',
    );
    expect(String(results[2]?.output)).toContain('leads outside the workspace through a symlink');
    expect(JSON.stringify(model.calls[1]?.prompt)).toContain('is outside the workspace');
    await expect(readFile(join(root, '..', 'escape.md'), 'utf8')).rejects.toThrow();
  });

  it('resolves paths inside the workspace', async () => {
    const root = await workspace();
    expect(await resolveInside(root, 'notes/new/deeper.md')).toBe(
      join(root, 'notes/new/deeper.md'),
    );
    expect(await resolveInside(root, '.')).toBe(root);
    await expect(resolveInside(root, '..')).rejects.toThrow('outside the workspace');
  });

  it('tells the policy to summarize even a note that failed to read', () => {
    const history: SeenToolCall[] = [
      {
        toolName: 'list_files',
        input: { path: '.' },
        output: 'notes/a.md (3 bytes)',
        isError: false,
      },
      { toolName: 'read_file', input: { path: 'notes/a.md' }, output: 'gone', isError: true },
    ];
    const step = decideNextStep(history);
    expect(step.toolCalls?.[0]?.input).toMatchObject({ path: 'SUMMARY.md' });
    expect(String(step.toolCalls?.[0]?.input.content)).toContain('(could not be read: gone)');
  });
});

describe('the demo (`pnpm demo`: agate run src/demo.tsx)', () => {
  it('shows the gate refusing an early finish, then the run completing, in plain lines', async () => {
    // The demo removes its workspace when the process exits; a test worker may outlive that.
    const before = new Set(await readdir(tmpdir()));
    onTestFinished(async () => {
      for (const name of await readdir(tmpdir())) {
        if (name.startsWith('agate-file-agent-') && !before.has(name)) {
          await rm(join(tmpdir(), name), { recursive: true, force: true });
        }
      }
    });
    let out = '';
    let err = '';
    const code = await main(['run', fileURLToPath(new URL('./demo.tsx', import.meta.url))], {
      out: (text) => {
        out += text;
      },
      err: (text) => {
        err += text;
      },
      env: {},
      isTTY: false,
      onInterrupt: () => () => {},
    });
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toContain(
      "model: the agent file's options.model (offline-file-agent, a scripted model: offline)",
    );
    expect(out).toContain(
      '── tick 3 ──\n  model: I have read both notes, so the task is done.\n' +
        '  gate summary: deferred → active (by runtime)\n  exit refused:\n' +
        '    Gate "summary" was deferred, now active again (refusal 1 of 5): SUMMARY.md must be written before finishing.',
    );
    expect(out).toContain(
      '  ← write_file: Wrote SUMMARY.md (436 bytes).\n  gate summary: active → inactive (by host)\n── tick 5 ──',
    );
    expect(out).toMatch(/status: completed\nticks: 5 \(session total 5\)\n/);
  });
});

describe('provider selection', () => {
  it('prefers AGATE_BASE_URL, then OPENAI_API_KEY, then the scripted model', () => {
    expect(
      selectProvider({
        AGATE_BASE_URL: 'http://127.0.0.1:1/v1',
        AGATE_MODEL: 'm',
        OPENAI_API_KEY: 'k',
      }).kind,
    ).toBe('openai-compatible');
    const openai = selectProvider({ OPENAI_API_KEY: 'sk-test' });
    expect(openai.kind).toBe('openai');
    expect(openai.description).toBe('OpenAI, model "gpt-4.1-mini"');
    expect(selectProvider({ OPENAI_API_KEY: ' ' }).kind).toBe('scripted');
  });

  it('asks for AGATE_MODEL when only AGATE_BASE_URL is set', () => {
    expect(() => selectProvider({ AGATE_BASE_URL: 'http://127.0.0.1:1/v1' })).toThrow(
      ProviderConfigError,
    );
  });
});

/** What the offline policy sees, rebuilt from an OpenAI chat completions request. */
function seenFromOpenAI(messages: ChatCompletionMessage[]): SeenToolCall[] {
  const calls = new Map<string, { name: string; input: unknown }>();
  const seen: SeenToolCall[] = [];
  for (const m of messages) {
    for (const call of m.tool_calls ?? []) {
      calls.set(call.id, { name: call.function.name, input: JSON.parse(call.function.arguments) });
    }
    if (m.role === 'tool' && m.tool_call_id !== undefined) {
      const call = calls.get(m.tool_call_id);
      const output = String(m.content);
      seen.push({
        toolName: call?.name ?? 'unknown',
        input: call?.input,
        output,
        isError: /^Tool "\w+" failed:/.test(output),
      });
    }
  }
  return seen;
}

describe('the file agent against an OpenAI-compatible server (AGATE_BASE_URL path)', () => {
  let server: OpenAICompatibleServer | undefined;
  afterAll(async () => {
    await server?.close();
  });

  it('does the task over HTTP and streams its text', async () => {
    server = await startOpenAICompatibleServer((request) =>
      decideNextStep(seenFromOpenAI(request.body.messages)),
    );
    const provider = selectProvider({ AGATE_BASE_URL: server.baseURL, AGATE_MODEL: 'test-model' });
    expect(provider.kind).toBe('openai-compatible');
    const root = await workspace();
    const events: AgateEvent[] = [];

    const result = await runFileAgent({
      model: provider.model,
      root,
      onEvent: (e) => events.push(e),
    });

    expect(result.status).toBe('completed');
    expect(await readFile(join(root, 'SUMMARY.md'), 'utf8')).toContain(
      '## Retro (notes/2026-11-20-retro.md)',
    );
    expect(server.requests).toHaveLength(4);
    expect(server.requests.every((r) => r.model === 'test-model' && r.stream === true)).toBe(true);
    expect(server.requests[0]?.tools?.map((t) => t.function.name)).toEqual([
      'list_files',
      'read_file',
      'write_file',
    ]);
    expect(events.some((e) => e.type === 'model:delta')).toBe(true);
    expect(result.usage.totalTokens).toBeGreaterThan(0);
  });
});
