import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

/** True when `host` is on the allow-list (`example.com`, or `*.example.com` for its subdomains). */
export function hostAllowed(host: string, allow: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return allow.some((entry) => {
    const rule = entry.toLowerCase().replace(/:\d+$/, '');
    return rule.startsWith('*.') ? name.endsWith(rule.slice(1)) : name === rule;
  });
}

/**
 * The sandbox's only way out when its network is an allow-list: an HTTP proxy on a Unix
 * socket (bound into the sandbox, whose own network has only loopback). `CONNECT host:port`
 * (HTTPS) and absolute-URI requests (HTTP) go through when the host is allowed; anything else
 * gets 403. Names are resolved here, on the host: the sandbox has no DNS.
 */
export async function startAllowListProxy(
  socketPath: string,
  allow: readonly string[],
): Promise<{ close(): Promise<void> }> {
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => client.destroy());
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > 16_384) client.destroy();
        return;
      }
      client.off('data', onData);
      route(client, head, end + 4, allow, open);
    };
    client.on('data', onData);
  });
  server.listen(socketPath);
  await once(server, 'listening');
  return {
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function route(
  client: Socket,
  head: Buffer,
  bodyStart: number,
  allow: readonly string[],
  open: Set<Socket>,
): void {
  const requestLine = head.subarray(0, head.indexOf('\r\n')).toString('latin1');
  const [method = '', target = ''] = requestLine.split(' ');
  let host: string;
  let port: number;
  let rest: Buffer;
  if (method === 'CONNECT') {
    const at = target.lastIndexOf(':');
    host = target.slice(0, at);
    port = Number(target.slice(at + 1));
    rest = head.subarray(bodyStart);
  } else {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      deny(client, 400, 'only proxy requests (absolute URLs or CONNECT) are served');
      return;
    }
    host = url.hostname;
    port = Number(url.port || 80);
    // Forward the request in origin form: the rest of the head and any body as received.
    const line = `${method} ${url.pathname}${url.search} ${requestLine.split(' ')[2] ?? 'HTTP/1.1'}`;
    rest = Buffer.concat([Buffer.from(line, 'latin1'), head.subarray(head.indexOf('\r\n'))]);
  }
  if (!hostAllowed(host, allow) || !Number.isInteger(port) || port <= 0 || port > 65_535) {
    deny(client, 403, `host ${host} is not on the sandbox's network allow-list`);
    return;
  }
  const upstream = connect({ host, port });
  open.add(upstream);
  upstream.on('close', () => open.delete(upstream));
  upstream.on('error', () => {
    if (method === 'CONNECT' && !client.destroyed)
      deny(client, 502, `could not reach ${host}:${port}`);
    client.destroy();
  });
  upstream.on('connect', () => {
    if (method === 'CONNECT') client.write('HTTP/1.1 200 Connection established\r\n\r\n');
    if (rest.length > 0) upstream.write(rest);
    client.pipe(upstream).pipe(client);
  });
}

function deny(client: Socket, status: number, why: string): void {
  const text = `agate sandbox: ${why}\n`;
  client.end(
    `HTTP/1.1 ${status} ${status === 403 ? 'Forbidden' : 'Bad Gateway'}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}
