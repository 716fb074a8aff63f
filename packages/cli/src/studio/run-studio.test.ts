import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
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

/** Reads server-sent events from the studio until `until` says stop. */
async function readEvents(url: string, until: (events: string[]) => boolean): Promise<string[]> {
  const response = await fetch(url);
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
    await expect.poll(() => /agate studio: (\S+)/.exec(stderr)?.[1]).toBeDefined();
    const url = /agate studio: (\S+)/.exec(stderr)?.[1] as string;

    // While the run goes on: the session is live and its ticks arrive as they end.
    const events = await readEvents(`${url}api/events`, (seen) => seen.length >= 1);
    expect(events[0]).toContain('"sessionId":"watched"');
    const live = (await (await fetch(`${url}api/sessions`)).json()) as Array<{
      id: string;
      live: boolean;
    }>;
    expect(live.find((s) => s.id === 'watched')).toBeDefined();
    const ticks = (await (await fetch(`${url}api/sessions/watched/ticks`)).json()) as Array<{
      tick: number;
    }>;
    expect(ticks.length).toBeGreaterThanOrEqual(1);

    // The run ends awaiting approval; the studio stays until Ctrl-C, with the ticks in the store.
    await expect.poll(() => stderr.includes('stays at'), { timeout: 10_000 }).toBe(true);
    const after = (await (await fetch(`${url}api/sessions/watched/ticks`)).json()) as unknown[];
    expect(after).toHaveLength(3);
    const page = await (await fetch(url)).text();
    expect(page).toContain('<title>Agate studio</title>');
    expect(page).not.toMatch(/(src|href)="https?:/);
    interrupt?.();
    expect(await exit).toBe(ExitCode.waiting);
    expect(await createFileStore(store).loadTicks?.('watched')).toHaveLength(3);
  }, 30_000);
});

/** A raw request, so the Host header can be another site's (fetch would not send it). */
function requestWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { headers: { host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
    request.end();
  });
}

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
  await expect.poll(() => /agate studio: (\S+)/.exec(stdout)?.[1]).toBeDefined();
  const url = /agate studio: (\S+)/.exec(stdout)?.[1] as string;
  return { url, exit, interrupt: () => interrupt?.() };
}

describe('agate studio', () => {
  it('serves the store on 127.0.0.1 until Ctrl-C; rejects from the API; refuses a foreign Host', async () => {
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
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);

    const sessions = (await (await fetch(`${url}api/sessions`)).json()) as Array<{
      id: string;
      pending: Array<{ id: string }>;
    }>;
    expect(sessions.find((s) => s.id === 'to-reject')?.pending.map((p) => p.id)).toEqual(['T-1']);
    // The run was not started with a tick log: the session is listed, with no ticks.
    expect(await (await fetch(`${url}api/sessions/to-reject/ticks`)).json()).toEqual([]);

    const decide = (body: unknown) =>
      fetch(`${url}api/sessions/to-reject/checkpoints/T-1/reject`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await decide({ feedback: 'no name' })).status).toBe(400);
    const rejected = await decide({ by: 'lead', feedback: 'Say goodbye too.' });
    expect(rejected.status).toBe(200);
    expect(await rejected.json()).toMatchObject({ kind: 'rejected', by: 'lead', signed: false });
    expect((await decide({ by: 'lead', feedback: 'again' })).status).toBe(409);
    expect(await requestWithHost(`${url}api/sessions`, 'evil.example:80')).toBe(403);

    interrupt();
    expect(await exit).toBe(ExitCode.ok);
    await expect(fetch(`${url}api/sessions`)).rejects.toThrow();
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

    const sessions = (await (await fetch(`${url}api/sessions`)).json()) as Array<{
      id: string;
      pendingCalls: Array<{ id: string; toolName: string; input: string }>;
    }>;
    expect(sessions.find((s) => s.id === 'held')?.pendingCalls).toEqual([
      { id: 'call_drop', toolName: 'drop_table', input: '{"table":"old_logs"}', tick: 1 },
    ]);
    const post = (path: string, body: unknown, origin?: string) =>
      fetch(`${url}api/sessions/held/tool-calls/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(origin ? { origin } : {}) },
        body: JSON.stringify(body),
      });
    expect((await post('call_drop/approve', { by: 'x' }, 'http://evil.example')).status).toBe(403);
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
