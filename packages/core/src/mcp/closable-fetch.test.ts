/**
 * The fetch of an `<McpServer url>` against a real loopback HTTP server: what reaches the
 * server (method, body, headers, from a URL or a `Request`), redirects in each mode, abort,
 * and `close()` leaving no socket open.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { scaledLimit } from '@agate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closableFetch } from './closable-fetch.js';

interface Seen {
  method: string;
  url: string;
  body: string;
  header: string | undefined;
}

let server: Server;
let base: string;
const sockets = new Set<Socket>();

async function bodyOf(request: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of request) body += chunk;
  return body;
}

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const body = await bodyOf(request);
    const url = request.url ?? '/';
    if (url.startsWith('/moved')) {
      // 307 keeps the method and body; 302 turns a POST into a GET.
      response.writeHead(url === '/moved-302' ? 302 : 307, { location: '/echo?after=redirect' });
      response.end();
      return;
    }
    if (url === '/hang') return; // Never answers: only an abort ends the request.
    const seen: Seen = {
      method: request.method ?? '',
      url,
      body,
      header: request.headers['x-agate'] as string | undefined,
    };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(seen));
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('closableFetch', () => {
  it("sends a URL's method, body and headers, and a Request's too", async () => {
    const http = closableFetch();
    try {
      const fromUrl = await http.fetch(`${base}/echo`, {
        method: 'POST',
        body: '{"jsonrpc":"2.0"}',
        headers: { 'x-agate': 'one' },
      });
      expect(await fromUrl.json()).toEqual({
        method: 'POST',
        url: '/echo',
        body: '{"jsonrpc":"2.0"}',
        header: 'one',
      });
      const fromRequest = await http.fetch(
        new Request(`${base}/echo`, {
          method: 'PUT',
          body: 'streamed',
          headers: { 'x-agate': 'two' },
        }),
      );
      expect(await fromRequest.json()).toEqual({
        method: 'PUT',
        url: '/echo',
        body: 'streamed',
        header: 'two',
      });
    } finally {
      await http.close();
    }
  });

  it("follows redirects as fetch does (a 307 keeps the POST and its body), or refuses them with redirect: 'error', or hands them back with 'manual'", async () => {
    const http = closableFetch();
    try {
      const followed = await http.fetch(`${base}/moved`, { method: 'POST', body: 'kept' });
      expect(followed.redirected).toBe(true);
      expect(await followed.json()).toMatchObject({
        method: 'POST',
        url: '/echo?after=redirect',
        body: 'kept',
      });
      const changed = await http.fetch(`${base}/moved-302`, { method: 'POST', body: 'dropped' });
      expect(await changed.json()).toMatchObject({ method: 'GET', body: '' });
      await expect(
        http.fetch(`${base}/moved`, { method: 'POST', body: 'x', redirect: 'error' }),
      ).rejects.toThrow(TypeError);
      const manual = await http.fetch(`${base}/moved`, { redirect: 'manual' });
      expect(manual.status).toBe(307);
      expect(manual.headers.get('location')).toBe('/echo?after=redirect');
    } finally {
      await http.close();
    }
  });

  it('aborts a request whose signal fires', async () => {
    const http = closableFetch();
    try {
      const controller = new AbortController();
      const pending = http.fetch(`${base}/hang`, { signal: controller.signal });
      setTimeout(() => controller.abort(new Error('gave up')), 50);
      await expect(pending).rejects.toThrow('gave up');
    } finally {
      await http.close();
    }
  });

  it('close() ends the kept-alive sockets it opened; the server sees them close', async () => {
    // Sockets of earlier tests may still be closing: only this test's count (a count taken
    // before would be wrong once one of them closes meanwhile).
    const earlier = new Set(sockets);
    const ours = () => [...sockets].filter((socket) => !earlier.has(socket)).length;
    const http = closableFetch();
    const responses = await Promise.all(
      [1, 2, 3].map(() => http.fetch(`${base}/echo`).then((r) => r.text())),
    );
    expect(responses).toHaveLength(3);
    expect(ours()).toBeGreaterThan(0);
    await http.close();
    // The server's side of each socket closes once the client's has.
    await expect.poll(ours, { timeout: scaledLimit(2_000) }).toBe(0);
    await expect(http.fetch(`${base}/echo`)).rejects.toThrow();
  });
});
