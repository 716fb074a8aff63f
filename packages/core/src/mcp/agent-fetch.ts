import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';

/** A `fetch` whose sockets all belong to one connection and end with it. */
export interface ClosableFetch {
  fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
  /** Destroys every socket this fetch opened (kept-alive ones included); resolves once closed. */
  close(): Promise<void>;
}

/**
 * `fetch` over node:http with agents of its own. The global `fetch` keeps idle sockets in a
 * process-wide pool after a connection is closed; an `<McpServer url>` must leave none behind
 * when its run ends, so its requests go through agents that `close()` destroys.
 */
export function closableFetch(): ClosableFetch {
  const agents = {
    'http:': new http.Agent({ keepAlive: true }),
    'https:': new https.Agent({ keepAlive: true }),
  };
  const sockets = new Set<Socket>();
  const fetch = (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return Promise.reject(
        new TypeError(`Only http: and https: URLs are supported, not ${url.protocol}`),
      );
    }
    const method = (init.method ?? 'GET').toUpperCase();
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, key) => {
      headers[key] = value;
    });
    return new Promise((resolve, reject) => {
      const request = (url.protocol === 'https:' ? https : http).request(
        url,
        {
          method,
          headers,
          agent: agents[url.protocol as 'http:' | 'https:'],
          ...(init.signal ? { signal: init.signal } : {}),
        },
        (response) => {
          const status = response.statusCode ?? 500;
          const out = new Headers();
          for (const [key, value] of Object.entries(response.headers)) {
            if (Array.isArray(value)) for (const v of value) out.append(key, v);
            else if (value !== undefined) out.set(key, value);
          }
          const empty = method === 'HEAD' || status === 204 || status === 304;
          if (empty) response.resume();
          resolve(
            new Response(empty ? null : (Readable.toWeb(response) as ReadableStream), {
              status,
              statusText: response.statusMessage ?? '',
              headers: out,
            }),
          );
        },
      );
      request.once('error', reject);
      request.once('socket', (socket: Socket) => {
        if (sockets.has(socket)) return;
        sockets.add(socket);
        socket.once('close', () => sockets.delete(socket));
      });
      const body = init.body;
      if (body === undefined || body === null) request.end();
      else if (typeof body === 'string' || body instanceof Uint8Array) request.end(body);
      else {
        new Response(body as BodyInit).arrayBuffer().then(
          (buffer) => request.end(Buffer.from(buffer)),
          (error: unknown) => request.destroy(error as Error),
        );
      }
    });
  };
  return {
    fetch,
    async close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
      // Wait for every socket's 'close': a destroyed socket's handle is released only then.
      const open = [...sockets];
      await Promise.all(
        open.map(
          (socket) =>
            new Promise<void>((resolve) => {
              socket.once('close', () => resolve());
              socket.destroy();
            }),
        ),
      );
    },
  };
}
