/**
 * Issue 37: the studio acts only for its own page. Each attack is a request over real HTTP,
 * from this test process (another local process, as a tool or an MCP server would be), against
 * `agate studio` started as a child process from the real bin with a private key. The page's
 * own attacks (a foreign page in the browser, the whole input) are in studio.browser.test.tsx.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileStore, createSession, type SessionState, type SessionStore } from '@agate/core';
import { scriptedModel } from '@agate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ApprovalAgent from '../__fixtures__/approval-agent.js';
import { builtCliBin } from '../__fixtures__/built-cli.js';
import { ExitCode } from '../errors.js';
import type { CliIo } from '../io.js';
import { main } from '../program.js';
import { startStudio } from './server.js';

// The built CLI (__fixtures__/built-cli.ts): no tsx transform at each start.
const BIN = builtCliBin();
const TOKEN_HEADER = 'x-agate-studio-token';

let dir: string;
let store: SessionStore;
let studio: ChildProcess;
/** The printed address, its origin and its token. */
let printed: URL;
let origin: string;
let token: string;

/** The environment of a process the test starts: no approval key of the machine's. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const name of Object.keys(env)) if (name.startsWith('AGATE_APPROVAL')) delete env[name];
  return env;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agate-studio-access-'));
  store = createFileStore(join(dir, 'sessions'));
  const pair = generateKeyPairSync('ed25519');
  const keyFile = join(dir, 'agate-approval.key');
  await writeFile(keyFile, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  const held = createSession(<ApprovalAgent />, {
    id: 'held',
    store,
    approvalPublicKey: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    model: scriptedModel([
      {
        toolCalls: [
          { toolCallId: 'call_drop', toolName: 'drop_table', input: { table: 'payments' } },
        ],
      },
    ]),
  });
  expect((await held.run()).status).toBe('awaiting-approval');
  await store.save(held.snapshot());

  studio = spawn(
    process.execPath,
    [BIN, 'studio', '--store', join(dir, 'sessions'), '--key-file', keyFile],
    { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  studio.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    studio.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /agate studio: (\S+)/.exec(out)?.[1];
      if (found !== undefined) resolve(found);
    });
    studio.once('exit', (code) => reject(new Error(`agate studio exited ${code}: ${err}`)));
  });
  printed = new URL(url);
  origin = printed.origin;
  token = printed.searchParams.get('token') ?? '';
}, 120_000);

afterAll(async () => {
  studio?.kill('SIGINT');
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A request with exactly these headers (node:http: fetch would add or refuse some). */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${origin}${path}`, { method, headers }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        // The event stream stays open: its first line is enough.
        if (path.startsWith('/api/events')) response.destroy();
      });
      const done = () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text });
      response.on('end', done);
      response.on('close', done);
    });
    request.on('error', reject);
    request.end(body);
  });
}

const APPROVE = '/api/sessions/held/tool-calls/call_drop/approve';
const json = JSON.stringify({ by: 'attacker' });
const own = () => ({ [TOKEN_HEADER]: token });
const mine = () => ({ ...own(), origin, 'content-type': 'application/json' });

async function callState(): Promise<string | undefined> {
  const state = (await store.load('held'))!.state as SessionState;
  return state.guards.approvals.calls.find((c) => c.id === 'call_drop')?.state;
}

describe('agate studio: only its own page', () => {
  it('prints its address with a token of 256 random bits, new at each launch', async () => {
    expect(printed.href).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{43}$/);
    // The printed address trades its token for the cookie: 303 to the bare address.
    const traded = await raw('GET', `/?token=${token}`, {});
    expect(traded.status).toBe(303);
    expect(traded.headers.location).toBe('/');
    expect(traded.headers['set-cookie']).toEqual([
      `agate-studio-${printed.port}=${token}; Path=/; HttpOnly; SameSite=Strict`,
    ]);
    expect(traded.body).toBe('');
    const page = await raw('GET', '/', { cookie: `agate-studio-${printed.port}=${token}` });
    expect(page.status).toBe(200);
    expect(page.headers['set-cookie']).toBeUndefined();
    expect(page.body).toContain('<title>Agate studio</title>');
    expect(page.body).not.toMatch(/(src|href)=["']?https?:/);
    // It runs only its own script and style, talks only to itself, is framed by no one, and
    // does not pass its address (with the token) on as a referrer.
    expect(page.headers['content-security-policy']).toMatch(
      /default-src 'none'; script-src 'sha256-[\w+/=]{44}'; style-src 'sha256-[\w+/=]{44}'; connect-src 'self'/,
    );
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['referrer-policy']).toBe('no-referrer');

    // Another launch on the same store: its own token, and neither opens the other.
    const second = await startStudio({ store });
    try {
      expect(second.token).not.toBe(token);
      expect(second.token).toMatch(/^[\w-]{43}$/);
      expect((await raw('GET', '/api/sessions', { [TOKEN_HEADER]: second.token })).status).toBe(
        401,
      );
      const other = await fetch(`${second.origin}/api/sessions`, { headers: own() });
      expect(other.status).toBe(401);
    } finally {
      await second.close();
    }
  }, 30_000);

  it('refuses every request without its token, GETs included', async () => {
    const paths = [
      '/',
      '/api/sessions',
      '/api/sessions/held',
      '/api/sessions/held/ticks',
      '/api/sessions/held/ticks/1',
      '/api/events',
    ];
    const port = printed.port;
    for (const path of paths) {
      expect((await raw('GET', path, {})).status, path).toBe(401);
      expect((await raw('GET', path, { [TOKEN_HEADER]: 'x'.repeat(43) })).status, path).toBe(401);
      expect((await raw('GET', `${path}?token=${token.slice(0, -1)}`, {})).status, path).toBe(401);
      // Another port's cookie, or this port's with another value: not this launch's token.
      const wrong = [`agate-studio-${Number(port) + 1}=${token}`, `agate-studio-${port}=x`];
      for (const cookie of wrong)
        expect((await raw('GET', path, { cookie })).status, path).toBe(401);
    }
    const refused = await raw('GET', '/api/sessions', {});
    expect(JSON.parse(refused.body).error).toMatch(/needs its token: open the address/);
    // With it (the header, or the page's cookie — the event stream's too): answered.
    const cookie = { cookie: `a=b; agate-studio-${port}=${token}` };
    expect((await raw('GET', '/api/sessions', own())).status).toBe(200);
    expect((await raw('GET', '/api/sessions/held', cookie)).status).toBe(200);
    expect((await raw('GET', '/api/events', cookie)).status).toBe(200);
    // The URL is no place for it past the printed address: it would stay in logs and history.
    expect((await raw('GET', `/api/sessions/held?token=${token}`, {})).status).toBe(401);
    expect((await raw('GET', `/api/events?token=${token}`, {})).status).toBe(401);
    // A decision without it, even from the page's origin as JSON.
    expect(
      (await raw('POST', APPROVE, { origin, 'content-type': 'application/json' }, json)).status,
    ).toBe(401);
    expect(await callState()).toBe('pending');
  });

  it('refuses a decision with no Origin: a local process posting JSON, even with the token', async () => {
    // The attack of issue 37: before, `200 {"signed":true}`.
    const answer = await raw(
      'POST',
      APPROVE,
      { ...own(), 'content-type': 'application/json' },
      json,
    );
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).error).toMatch(/only from the studio page/);
    expect(await callState()).toBe('pending');
  });

  it('refuses a foreign Origin, Origin: null and another port of 127.0.0.1, on decisions and reads', async () => {
    const port = Number(printed.port);
    for (const foreign of [
      'http://evil.example',
      'null',
      `http://127.0.0.1:${port + 1}`,
      `https://127.0.0.1:${port}`,
    ]) {
      const headers = { ...own(), origin: foreign, 'content-type': 'application/json' };
      expect((await raw('POST', APPROVE, headers, json)).status, foreign).toBe(403);
      expect(
        (await raw('GET', '/api/sessions', { ...own(), origin: foreign })).status,
        foreign,
      ).toBe(403);
    }
    expect(await callState()).toBe('pending');
  });

  it('refuses a decision that is not application/json (a cross-site form)', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data']) {
      const headers = { ...own(), origin, 'content-type': type };
      expect((await raw('POST', APPROVE, headers, json)).status, type).toBe(415);
    }
    expect((await raw('POST', APPROVE, { ...own(), origin }, json)).status).toBe(415);
    // Exactly application/json: a type that only starts with it is not (issue 48, item 5).
    for (const type of [
      'application/jsonfoo',
      'application/json-patch+json',
      'application/json5',
    ]) {
      const headers = { ...own(), origin, 'content-type': type };
      expect((await raw('POST', APPROVE, headers, json)).status, type).toBe(415);
    }
    expect(await callState()).toBe('pending');
  });

  it('refuses a `by` or reason over 200 characters or with control characters, recording nothing', async () => {
    const DENY = '/api/sessions/held/tool-calls/call_drop/deny';
    for (const [what, body] of [
      ['long by', { by: 'a'.repeat(201), reason: 'no' }],
      ['by with a line break', { by: 'mallory\nApproved by: dba', reason: 'no' }],
      ['by with an escape', { by: 'mallory\u001b[2Kdba', reason: 'no' }],
      ['by with a bidi override', { by: 'mallory\u202eabd', reason: 'no' }],
      ['long reason', { by: 'dba', reason: 'r'.repeat(201) }],
      ['reason with NUL', { by: 'dba', reason: 'ok\u0000' }],
    ] as const) {
      for (const path of [APPROVE, DENY]) {
        const answer = await raw('POST', path, mine(), JSON.stringify(body));
        expect(answer.status, `${what} ${path}`).toBe(400);
        expect(JSON.parse(answer.body).error, what).toMatch(
          /Deciding tool call "call_drop": `(by|reason)` (has 201 characters|holds the control character)/,
        );
      }
    }
    expect(await callState()).toBe('pending');
    const ledger = ((await store.load('held'))!.state as SessionState).guards.approvals.ledger;
    expect(ledger.map((e) => e.kind)).toEqual(['tool-approval-request']);
  });

  it('refuses a foreign Host header (DNS rebinding), token or not', async () => {
    for (const host of [
      'evil.example',
      `evil.example:${printed.port}`,
      `127.0.0.1.evil.example:${printed.port}`,
      `127.0.0.1:${Number(printed.port) + 1}`,
    ]) {
      expect((await raw('GET', '/api/sessions', { ...own(), host })).status, host).toBe(403);
      const headers = { ...mine(), host, origin: `http://${host}` };
      expect((await raw('POST', APPROVE, headers, json)).status, host).toBe(403);
    }
    // Its own names for itself are fine.
    expect(
      (await raw('GET', '/api/sessions', { ...own(), host: `localhost:${printed.port}` })).status,
    ).toBe(200);
  });

  it('answers 400, not 500, to a malformed session id or tick in the address', async () => {
    for (const path of [
      '/api/sessions/%E0%A4%A',
      '/api/sessions/%E0%A4%A/ticks',
      '/api/sessions/..%2F..%2Fetc%2Fpasswd/ticks',
      '/api/sessions/.hidden',
      '/api/sessions/a%20b/ticks',
      `/api/sessions/${'x'.repeat(129)}`,
      '/api/sessions/held/ticks/abc',
      '/api/sessions/held/ticks/1e3',
      '/api/sessions/held/ticks/-1',
    ]) {
      const answer = await raw('GET', path, own());
      expect(answer.status, path).toBe(400);
      expect(JSON.parse(answer.body).error, path).toMatch(
        /Invalid session id|malformed|whole number/,
      );
    }
    const post = await raw(
      'POST',
      '/api/sessions/bad%20id/tool-calls/call_drop/approve',
      mine(),
      json,
    );
    expect(post.status).toBe(400);
    // Well formed but unknown: 404.
    expect((await raw('GET', '/api/sessions/nobody', own())).status).toBe(404);
    expect((await raw('GET', '/api/sessions/held/ticks/99', own())).status).toBe(404);
  });

  it('decides for its own page: token, same origin, JSON — signed with the key it holds', async () => {
    const answer = await raw('POST', APPROVE, mine(), JSON.stringify({ by: 'dba' }));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({
      kind: 'tool-approved',
      by: 'dba',
      signed: true,
    });
    expect(await callState()).toBe('approved');
  });
});

const QUIET: CliIo = {
  out: () => {},
  err: () => {},
  env: {},
  isTTY: false,
  onInterrupt: () => () => {},
};

async function agate(argv: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const code = await main(argv, {
    ...QUIET,
    err: (text) => {
      stderr += text;
    },
  });
  return { code, stderr };
}

describe('agate studio: bad options', () => {
  it('--port 99999 exits 2 with one line, no stack trace (the real bin)', () => {
    const run = spawnSync(process.execPath, [BIN, 'studio', '--port', '99999', '--store', dir], {
      env: childEnv(),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(ExitCode.usage);
    expect(run.stderr).toBe(
      "agate: option '--port <n>' argument '99999' is invalid. expected a port number from 1 to 65535. Run `agate --help` for the commands and their options.\n",
    );
    expect(run.stdout).toBe('');
  }, 60_000);

  it('refuses a port that is not one, for studio and run --studio-port', async () => {
    for (const port of ['0', '-1', 'abc', '80.5', '65536', '']) {
      const studioRun = await agate(['studio', '--port', port, '--store', dir]);
      expect(studioRun.code, port).toBe(ExitCode.usage);
      expect(studioRun.stderr, port).toMatch(/^agate: option '--port <n>' argument .* is invalid/);
      const run = await agate(['run', 'agent.tsx', '--studio', '--studio-port', port]);
      expect(run.code, port).toBe(ExitCode.usage);
      expect(run.stderr, port).toContain('expected a port number from 1 to 65535');
    }
  });

  it('says so when the port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const run = await agate(['studio', '--port', String(port), '--store', dir]);
      expect(run.code).toBe(ExitCode.usage);
      expect(run.stderr).toBe(
        `agate: port ${port} is in use: pick another with --port, or leave it out for a free one.\n`,
      );
    } finally {
      taken.close();
    }
  });
});
