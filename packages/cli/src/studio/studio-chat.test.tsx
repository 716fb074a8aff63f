import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFileStore, type SessionState, type SessionStore } from '@agate/core';
import { type ScriptedReply, scriptedModel } from '@agate/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { childEnv } from '../__fixtures__/agate-process.js';
import ApprovalAgent, { dropped } from '../__fixtures__/approval-agent.js';
import { builtCliBin } from '../__fixtures__/built-cli.js';
import { ExitCode } from '../errors.js';
import { main } from '../program.js';
import { MAX_CHAT_MESSAGE_CHARS, readChatMessage } from './chat.js';
import { type Studio, startStudio } from './server.js';

let dir: string;
let store: SessionStore;
let studio: Studio;

/** The model of every chat below: one script, played on across the studio's runs. */
const turns: Array<string | ScriptedReply> = [];
const model = scriptedModel([(call) => turns[call.index] ?? 'nothing more scripted'], {
  whenExhausted: 'repeat-last',
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agate-studio-chat-'));
  store = createFileStore(join(dir, 'sessions'));
  studio = await startStudio({
    store,
    agent: {
      file: 'approval-agent.tsx',
      element: <ApprovalAgent />,
      options: {},
      model,
      modelDescription: 'a scripted model',
    },
  });
});

// What this test's runs dropped: the list is the fixture module's, and files sharing a module
// graph (the node-shared project) run the agent too.
beforeEach(() => {
  dropped.length = 0;
});

afterEach(async () => {
  await studio.chat?.idle();
});

afterAll(async () => {
  await studio?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Plays `replies` as the model's next turns. */
function script(...replies: Array<string | ScriptedReply>): void {
  turns.length = model.calls.length;
  turns.push(...replies);
}

/** A request with exactly these headers (node:http: fetch would add or refuse some). */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${studio.origin}${path}`, { method, headers }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    request.on('error', reject);
    if (body !== undefined) request.write(body);
    request.end();
  });
}

/** What the page sends: the token's cookie stands in for the header, same origin, JSON. */
const own = () => ({
  'x-agate-studio-token': studio.token,
  origin: studio.origin,
  'content-type': 'application/json',
  'sec-fetch-site': 'same-origin',
});

async function post(path: string, body: unknown, headers = own()) {
  const answer = await raw('POST', path, headers, JSON.stringify(body));
  return { status: answer.status, body: JSON.parse(answer.body) as Record<string, unknown> };
}

async function stored(id: string): Promise<SessionState> {
  const snapshot = await store.load(id);
  if (snapshot === undefined) throw new Error(`no session ${id}`);
  return snapshot.state as SessionState;
}

/** Each message as `role: text` (a tool call or result as its type). */
const texts = (state: SessionState) =>
  state.timeline.map((m) => {
    if (typeof m.content === 'string') return `${m.role}: ${m.content}`;
    const parts = m.content.map((part) => (part.type === 'text' ? part.text : `(${part.type})`));
    return `${m.role}: ${parts.join(' ')}`;
  });

describe('agate studio --agent: the chat', () => {
  it('says whom it talks to', async () => {
    const info = await raw('GET', '/api/chat', own());
    expect(info.status).toBe(200);
    expect(JSON.parse(info.body)).toEqual({
      agent: 'approval-agent.tsx',
      model: 'a scripted model',
      maxMessageChars: MAX_CHAT_MESSAGE_CHARS,
    });
  });

  it('runs a message, keeps the session in the store with its tick log, and goes on with the conversation', async () => {
    script('Which tables?');
    const sent = await post('/api/chat', { text: '  Hello agent  ' });
    expect(sent.status).toBe(202);
    const id = sent.body.sessionId as string;
    await studio.chat?.idle();
    expect(texts(await stored(id))).toEqual(['user: Hello agent', 'assistant: Which tables?']);
    expect((await stored(id)).status).toBe('completed');

    script('Noted.');
    const next = await post('/api/chat', { sessionId: id, text: 'The old ones.' });
    expect(next).toEqual({ status: 202, body: { sessionId: id } });
    await studio.chat?.idle();
    expect(texts(await stored(id))).toEqual([
      'user: Hello agent',
      'assistant: Which tables?',
      'user: The old ones.',
      'assistant: Noted.',
    ]);
    const ticks = JSON.parse((await raw('GET', `/api/sessions/${id}/ticks`, own())).body);
    expect(ticks.map((t: { reply: string }) => t.reply)).toEqual(['Which tables?', 'Noted.']);
    // The model saw the whole conversation, the agent's own <User> first.
    const prompt = JSON.stringify(model.calls.at(-1)?.prompt);
    expect(prompt).toContain('Drop the old tables.');
    expect(prompt).toContain('Hello agent');
  });

  it('holds a call for approval, takes the decision, and goes on from it', async () => {
    script(
      { toolCalls: [{ toolCallId: 'c-logs', toolName: 'drop_table', input: { table: 'logs' } }] },
      'Dropped logs.',
    );
    const sent = await post('/api/chat', { text: 'Drop logs.' });
    const id = sent.body.sessionId as string;
    await studio.chat?.idle();
    const held = await stored(id);
    expect(held.status).toBe('awaiting-approval');
    expect(dropped).not.toContain('logs');

    const approved = await post(`/api/sessions/${id}/tool-calls/c-logs/approve`, { by: 'ana' });
    expect(approved.status).toBe(200);
    // Decided: the session waits for nothing, and goes on when asked to.
    expect((await stored(id)).status).toBe('idle');
    const on = await post('/api/chat', { sessionId: id });
    expect(on.status).toBe(202);
    await studio.chat?.idle();
    expect(dropped).toContain('logs');
    const after = await stored(id);
    expect(after.status).toBe('completed');
    expect(texts(after).at(-1)).toBe('assistant: Dropped logs.');
  });

  it('refuses a second message while a tick runs (409 busy), and a decision on that session', async () => {
    script({ text: 'Slow answer.', delayMs: 1_500 });
    const first = await post('/api/chat', { text: 'Take your time.' });
    expect(first.status).toBe(202);
    const id = first.body.sessionId as string;
    const info = JSON.parse((await raw('GET', '/api/chat', own())).body);
    expect(info.running).toBe(id);

    const second = await post('/api/chat', { sessionId: id, text: 'Are you done?' });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ code: 'busy', sessionId: id });
    expect(second.body.error).toMatch(/running a tick: the message was not taken/);
    const elsewhere = await post('/api/chat', { text: 'A new chat meanwhile.' });
    expect(elsewhere.status).toBe(409);
    const decision = await post(`/api/sessions/${id}/tool-calls/c-x/approve`, { by: 'ana' });
    expect(decision.status).toBe(409);
    expect(decision.body).toMatchObject({ code: 'busy' });

    await studio.chat?.idle();
    expect(texts(await stored(id))).toEqual(['user: Take your time.', 'assistant: Slow answer.']);
  });

  it('says on the page how a run failed, and takes the next message', async () => {
    script({ error: new Error('the provider is down') });
    const id = (await post('/api/chat', { text: 'Anyone there?' })).body.sessionId as string;
    await studio.chat?.idle();
    const info = JSON.parse((await raw('GET', '/api/chat', own())).body);
    expect(info.running).toBeUndefined();
    expect(info.lastError.sessionId).toBe(id);
    expect(info.lastError.message).toContain('the provider is down');
    expect((await stored(id)).status).toBe('error');
    script('Back.');
    expect((await post('/api/chat', { sessionId: id, text: 'Again?' })).status).toBe(202);
    await studio.chat?.idle();
    expect(texts(await stored(id)).at(-1)).toBe('assistant: Back.');
    expect(JSON.parse((await raw('GET', '/api/chat', own())).body).lastError).toBeUndefined();
  });

  it('refuses an approval for a call that is not held', async () => {
    script('Fine.');
    const id = (await post('/api/chat', { text: 'Hi.' })).body.sessionId as string;
    await studio.chat?.idle();
    const unknown = await post(`/api/sessions/${id}/tool-calls/c-made-up/approve`, { by: 'ana' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/c-made-up/);
    const denied = await post(`/api/sessions/${id}/tool-calls/c-made-up/deny`, {
      by: 'ana',
      reason: 'no',
    });
    expect(denied.status).toBe(404);
    expect((await stored(id)).guards.approvals.calls).toEqual([]);
  });

  it('refuses an oversized message (400) and an oversized body (413), adding nothing', async () => {
    const before = (await store.list()).length;
    const long = await post('/api/chat', { text: 'x'.repeat(MAX_CHAT_MESSAGE_CHARS + 1) });
    expect(long.status).toBe(400);
    expect(long.body.error).toMatch(/16001 characters; at most 16000/);
    const huge = await raw(
      'POST',
      '/api/chat',
      own(),
      JSON.stringify({ text: 'y'.repeat(70_000) }),
    );
    expect(huge.status).toBe(413);
    expect((await store.list()).length).toBe(before);
  });

  it('refuses a cross-origin POST, a same-site page, no token and a form (403/401/415)', async () => {
    const message = JSON.stringify({ text: 'Drop everything.' });
    const before = (await store.list()).length;
    expect(
      (await raw('POST', '/api/chat', { ...own(), origin: 'http://evil.example' }, message)).status,
    ).toBe(403);
    expect((await raw('POST', '/api/chat', { ...own(), origin: 'null' }, message)).status).toBe(
      403,
    );
    const { origin: _origin, ...noOrigin } = own();
    expect((await raw('POST', '/api/chat', noOrigin, message)).status).toBe(403);
    expect(
      (await raw('POST', '/api/chat', { ...own(), 'sec-fetch-site': 'same-site' }, message)).status,
    ).toBe(403);
    const { 'x-agate-studio-token': _token, ...noToken } = own();
    expect((await raw('POST', '/api/chat', noToken, message)).status).toBe(401);
    expect(
      (await raw('POST', '/api/chat', { ...own(), 'content-type': 'text/plain' }, message)).status,
    ).toBe(415);
    expect((await store.list()).length).toBe(before);
  });

  it('answers 400 or 404 to a message it cannot take', async () => {
    expect((await post('/api/chat', ['hi'])).status).toBe(400);
    expect((await post('/api/chat', { text: 42 })).status).toBe(400);
    expect((await post('/api/chat', { text: '   ' })).status).toBe(400);
    expect((await post('/api/chat', { sessionId: '../etc', text: 'hi' })).status).toBe(400);
    expect((await raw('POST', '/api/chat', own(), '{"text": ')).status).toBe(400);
    const missing = await post('/api/chat', { sessionId: 'never-stored' });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatch(/No session "never-stored"/);
  });
});

describe('readChatMessage', () => {
  it('keeps a trimmed text and a valid id, and nothing else', () => {
    expect(readChatMessage({ text: ' hi ', sessionId: 's-1', extra: true })).toEqual({
      text: 'hi',
      sessionId: 's-1',
    });
    expect(readChatMessage({ sessionId: 's-1', text: '' })).toEqual({ sessionId: 's-1' });
    expect(() => readChatMessage(null)).toThrow(/JSON object/);
    expect(() => readChatMessage({ sessionId: '.hidden', text: 'x' })).toThrow(/session id/);
  });
});

describe('agate studio without --agent', () => {
  it('has no chat: 404, and nothing runs', async () => {
    const plain = await startStudio({ store });
    try {
      const headers = {
        'x-agate-studio-token': plain.token,
        origin: plain.origin,
        'content-type': 'application/json',
      };
      const answer = await new Promise<number>((resolve, reject) => {
        const request = httpRequest(
          `${plain.origin}/api/chat`,
          { method: 'POST', headers },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on('error', reject);
        request.end(JSON.stringify({ text: 'hi' }));
      });
      expect(answer).toBe(404);
      expect(plain.chat).toBeUndefined();
    } finally {
      await plain.close();
    }
  });
});

// The built CLI (__fixtures__/built-cli.ts): no tsx transform at each start.
const BIN = builtCliBin();
const CHECKPOINT_AGENT = fileURLToPath(
  new URL('../__fixtures__/checkpoint-agent.tsx', import.meta.url),
);

describe('agate studio --agent --scripted (the real bin)', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill('SIGINT');
  });

  it('talks to a checkpointed agent on a script: a message, the checkpoint approved, on to the end', async () => {
    const sessions = join(dir, 'bin-sessions');
    const scriptFile = join(dir, 'script.json');
    await writeFile(
      scriptFile,
      JSON.stringify([
        { toolCalls: [{ toolName: 'save_note', input: { text: 'hello' } }] },
        {
          toolCalls: [
            { toolName: 'submit_checkpoint', input: { id: 'T-1', summary: 'Saved hello.' } },
          ],
        },
        { toolCalls: [{ toolName: 'save_note', input: { text: 'bye' } }] },
        'Both notes saved.',
      ]),
    );
    child = spawn(
      process.execPath,
      [BIN, 'studio', '--agent', CHECKPOINT_AGENT, '--scripted', scriptFile, '--store', sessions],
      { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    const printed = new URL(
      await new Promise<string>((resolve, reject) => {
        child?.stdout?.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const found = /agate studio: (\S+)/.exec(out)?.[1];
          if (found !== undefined) resolve(found);
        });
        child?.once('exit', (code) => reject(new Error(`agate studio exited ${code}: ${err}`)));
      }),
    );
    expect(out).toContain(`model: scripted model from ${scriptFile} (offline)`);
    const headers = {
      'x-agate-studio-token': printed.searchParams.get('token') ?? '',
      origin: printed.origin,
      'content-type': 'application/json',
    };
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${printed.origin}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const idle = () =>
      expect
        .poll(async () => (await call('GET', '/api/chat')).body.running, { timeout: 30_000 })
        .toBeUndefined();

    const sent = await call('POST', '/api/chat', { text: 'Save hello, then bye.' });
    expect(sent.status).toBe(202);
    const id = sent.body.sessionId as string;
    await idle();
    const held = await call('GET', `/api/sessions/${id}`);
    expect(held.body).toMatchObject({ status: 'awaiting-approval', pending: [{ id: 'T-1' }] });

    const approved = await call('POST', `/api/sessions/${id}/checkpoints/T-1/approve`, {
      by: 'ana',
    });
    expect(approved.status).toBe(200);
    // Approved twice: it is no longer pending (409), nothing recorded.
    expect(
      (await call('POST', `/api/sessions/${id}/checkpoints/T-1/approve`, { by: 'ana' })).status,
    ).toBe(409);
    expect((await call('POST', '/api/chat', { sessionId: id })).status).toBe(202);
    await idle();
    const done = await call('GET', `/api/sessions/${id}`);
    expect(done.body.status).toBe('completed');
    const last = (done.body.messages as Array<{ parts: Array<{ text?: string }> }>).at(-1);
    expect(last?.parts[0]?.text).toBe('Both notes saved.');
    // In the store given, as `agate run --store` keeps a session: `agate show` reads it.
    const shown = await agate(['show', id, '--store', sessions]);
    expect(shown.code).toBe(ExitCode.ok);
    expect(shown.stdout).toContain('completed');
  }, 90_000);
});

async function agate(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    out: (text) => {
      stdout += text;
    },
    err: (text) => {
      stderr += text;
    },
    env: {},
    isTTY: false,
    onInterrupt: () => () => {},
  });
  return { code, stdout, stderr };
}

describe('agate studio --agent: bad options', () => {
  it('refuses model flags without --agent, and a private key with it (exit 2, one line)', async () => {
    const flags = await agate(['studio', '--scripted', 'x.json', '--store', dir]);
    expect(flags.code).toBe(ExitCode.usage);
    expect(flags.stderr).toMatch(/^agate: The model flags .* choose the model of --agent/);
    const keyFile = join(dir, 'some.key');
    await writeFile(keyFile, 'not read');
    const keyed = await agate(['studio', '--agent', CHECKPOINT_AGENT, '--key-file', keyFile]);
    expect(keyed.code).toBe(ExitCode.usage);
    expect(keyed.stderr).toMatch(/^agate: --agent runs the agent's tools in the studio's process/);
    const missing = await agate(['studio', '--agent', join(dir, 'nope.tsx'), '--store', dir]);
    expect(missing.code).toBe(ExitCode.usage);
    expect(missing.stderr).toMatch(/Agent file .*nope\.tsx not found/);
  });
});
