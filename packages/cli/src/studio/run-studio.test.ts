import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileStore } from '@agate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../errors.js';
import type { CliIo } from '../io.js';
import { main } from '../program.js';

const AGENT = join(import.meta.dirname, '../__fixtures__/checkpoint-agent.tsx');
const APPROVAL_AGENT = join(import.meta.dirname, '../__fixtures__/approval-agent.tsx');
const DROP_SCRIPT = join(import.meta.dirname, '../__fixtures__/drop-old-logs.json');

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'agate-run-studio-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/**
 * The studio's API as its page calls it: from the printed address (which holds the launch's
 * token), with the token and, for a decision, the page's own origin.
 */
function studioApi(printed: string) {
  const page = new URL(printed);
  const token = page.searchParams.get('token') ?? '';
  const at = (path: string) => `${page.origin}${path}`;
  return {
    page,
    at,
    get: (path: string) => fetch(at(path), { headers: { 'x-agate-studio-token': token } }),
    post: (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(at(path), {
        method: 'POST',
        headers: {
          'x-agate-studio-token': token,
          origin: page.origin,
          'content-type': 'application/json',
          ...headers,
        },
        body: JSON.stringify(body),
      }),
    events: `${page.origin}/api/events`,
    token,
  };
}

/** Reads server-sent events from the studio until `until` says stop. */
async function readEvents(
  url: string,
  token: string,
  until: (events: string[]) => boolean,
): Promise<string[]> {
  const response = await fetch(url, { headers: { 'x-agate-studio-token': token } });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  const events: string[] = [];
  while (!until(events)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value);
    const blocks = text.split('\n\n');
    text = blocks.pop() ?? '';
    for (const block of blocks) if (block.startsWith('event: ')) events.push(block);
  }
  await reader.cancel();
  return events;
}

describe('agate run --studio', () => {
  it('shows the ticks live (server-sent events), then stays up until Ctrl-C', async () => {
    const script = join(work, 'script.json');
    await writeFile(
      script,
      JSON.stringify([
        { toolCalls: [{ toolName: 'save_note', input: { text: 'hello' } }] },
        // Slow enough that the event stream is open before the last ticks end, on a busy machine
        // too (the stream sends what happens from then on, no replay).
        { delayMs: 1_500, toolCalls: [{ toolName: 'save_note', input: { text: 'again' } }] },
        {
          delayMs: 1_500,
          toolCalls: [{ toolName: 'submit_checkpoint', input: { id: 'T-1', summary: 'Saved.' } }],
        },
      ]),
    );
    const store = join(work, 'sessions');
    let stderr = '';
    let interrupt: (() => void) | undefined;
    const io: CliIo = {
      out: () => {},
      err: (text) => {
        stderr += text;
      },
      env: {},
      isTTY: false,
      onInterrupt: (handler) => {
        interrupt = () => handler('SIGINT');
        return () => {
          interrupt = undefined;
        };
      },
    };
    const exit = main(
      [
        'run',
        AGENT,
        '--scripted',
        script,
        '--store',
        store,
        '--id',
        'watched',
        '--plain',
        '--studio',
      ],
      io,
    );
    // Run from the sources, the studio bundles its page before it prints its address.
    await expect
      .poll(() => /agate studio: (\S+)/.exec(stderr)?.[1], { timeout: 20_000 })
      .toBeDefined();
    const url = /agate studio: (\S+)/.exec(stderr)?.[1] as string;
    const api = studioApi(url);

    // While the run goes on: the session is live and its ticks arrive as they end.
    const events = await readEvents(api.events, api.token, (seen) => seen.length >= 1);
    expect(events[0]).toContain('"sessionId":"watched"');
    const live = (await (await api.get('/api/sessions')).json()) as Array<{
      id: string;
      live: boolean;
    }>;
    expect(live.find((s) => s.id === 'watched')).toBeDefined();
    const ticks = (await (await api.get('/api/sessions/watched/ticks')).json()) as Array<{
      tick: number;
    }>;
    expect(ticks.length).toBeGreaterThanOrEqual(1);

    // The run ends awaiting approval; the studio stays until Ctrl-C, with the ticks in the store.
    await expect.poll(() => stderr.includes('stays at'), { timeout: 10_000 }).toBe(true);
    const after = (await (await api.get('/api/sessions/watched/ticks')).json()) as unknown[];
    expect(after).toHaveLength(3);
    // The printed address trades its token for the cookie; the page is at the bare address.
    const traded = await fetch(url, { redirect: 'manual' });
    expect([traded.status, traded.headers.get('location')]).toEqual([303, '/']);
    const page = await (await api.get('/')).text();
    expect(page).toContain('<title>Agate studio</title>');
    expect(page).not.toMatch(/(src|href)="https?:/);
    interrupt?.();
    expect(await exit).toBe(ExitCode.waiting);
    expect(await createFileStore(store).loadTicks?.('watched')).toHaveLength(3);
  }, 30_000);
});

const QUIET: CliIo = {
  out: () => {},
  err: () => {},
  env: {},
  isTTY: false,
  onInterrupt: () => () => {},
};

/** `agate studio --store dir`, started as from a terminal: its address, Ctrl-C, its exit code. */
async function studioCommand(dir: string) {
  let stdout = '';
  let interrupt: (() => void) | undefined;
  const exit = main(['studio', '--store', dir], {
    ...QUIET,
    out: (text) => {
      stdout += text;
    },
    onInterrupt: (handler) => {
      interrupt = () => handler('SIGINT');
      return () => {};
    },
  });
  await expect
    .poll(() => /agate studio: (\S+)/.exec(stdout)?.[1], { timeout: 20_000 })
    .toBeDefined();
  const url = /agate studio: (\S+)/.exec(stdout)?.[1] as string;
  return { url, exit, interrupt: () => interrupt?.() };
}

describe('agate studio', () => {
  it('serves the store on 127.0.0.1 until Ctrl-C at an address with its token; rejects from the API', async () => {
    const dir = join(work, 'studio-store');
    const script = join(work, 'submit.json');
    await writeFile(
      script,
      JSON.stringify([
        { toolCalls: [{ toolName: 'save_note', input: { text: 'hello' } }] },
        { toolCalls: [{ toolName: 'submit_checkpoint', input: { id: 'T-1', summary: 'Saved.' } }] },
      ]),
    );
    expect(
      await main(
        ['run', AGENT, '--scripted', script, '--store', dir, '--id', 'to-reject', '--plain'],
        QUIET,
      ),
    ).toBe(ExitCode.waiting);

    const { url, exit, interrupt } = await studioCommand(dir);
    // The address holds the launch's token, as Jupyter prints it.
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{43}$/);
    const api = studioApi(url);

    const sessions = (await (await api.get('/api/sessions')).json()) as Array<{
      id: string;
      pending: Array<{ id: string }>;
    }>;
    expect(sessions.find((s) => s.id === 'to-reject')?.pending.map((p) => p.id)).toEqual(['T-1']);
    // The run was not started with a tick log: the session is listed, with no ticks.
    expect(await (await api.get('/api/sessions/to-reject/ticks')).json()).toEqual([]);

    const decide = (body: unknown) =>
      api.post('/api/sessions/to-reject/checkpoints/T-1/reject', body);
    expect((await decide({ feedback: 'no name' })).status).toBe(400);
    const rejected = await decide({ by: 'lead', feedback: 'Say goodbye too.' });
    expect(rejected.status).toBe(200);
    expect(await rejected.json()).toMatchObject({ kind: 'rejected', by: 'lead', signed: false });
    expect((await decide({ by: 'lead', feedback: 'again' })).status).toBe(409);

    interrupt();
    expect(await exit).toBe(ExitCode.ok);
    await expect(api.get('/api/sessions')).rejects.toThrow();
  }, 30_000);

  it('approves a held tool call through its API: 409 once decided, 404 for an unknown call', async () => {
    const dir = join(work, 'held-store');
    expect(
      await main(
        [
          'run',
          APPROVAL_AGENT,
          '--scripted',
          DROP_SCRIPT,
          '--store',
          dir,
          '--id',
          'held',
          '--plain',
        ],
        QUIET,
      ),
    ).toBe(ExitCode.waiting);
    const { url, exit, interrupt } = await studioCommand(dir);
    const api = studioApi(url);

    const sessions = (await (await api.get('/api/sessions')).json()) as Array<{
      id: string;
      pendingCalls: unknown[];
    }>;
    expect(sessions.find((s) => s.id === 'held')?.pendingCalls).toEqual([
      { id: 'call_drop', toolName: 'drop_table', tick: 1 },
    ]);
    // The session whole: the call's input, whole, and the digest its decision is signed over.
    const view = (await (await api.get('/api/sessions/held')).json()) as {
      pendingCalls: Array<{ input: string; digest: string }>;
      messages: Array<{ role: string; parts: Array<{ kind: string; text?: string }> }>;
    };
    expect(view.pendingCalls).toEqual([
      expect.objectContaining({
        id: 'call_drop',
        input: JSON.stringify({ table: 'old_logs' }, null, 2),
        digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      }),
    ]);
    expect(view.messages[0]?.parts[0]).toEqual({
      kind: 'text',
      text: 'Dropping the old log table.',
    });
    const post = (path: string, body: unknown, headers?: Record<string, string>) =>
      api.post(`/api/sessions/held/tool-calls/${path}`, body, headers);
    expect(
      (await post('call_drop/approve', { by: 'x' }, { origin: 'http://evil.example' })).status,
    ).toBe(403);
    // A checkpoint's verb is not a tool call's.
    expect((await post('call_drop/reject', { by: 'x' })).status).toBe(404);
    expect((await post('call_nope/approve', { by: 'dba' })).status).toBe(404);
    const approved = await post('call_drop/approve', { by: 'dba' });
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({ kind: 'tool-approved', by: 'dba' });
    const again = await post('call_drop/deny', { by: 'ops', reason: 'No.' });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: string }).error).toMatch(/already approved by dba/);

    interrupt();
    expect(await exit).toBe(ExitCode.ok);
  }, 30_000);
});
