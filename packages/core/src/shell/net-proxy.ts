import { once } from 'node:events';
import type { Server, Socket } from 'node:net';
import { dnsPromises, nodeNet } from '../ground/builtins.js';
import {
  type AllowEntry,
  isInternalAddress,
  matchingEntries,
  namesExactly,
  normalizeHost,
  parseAllowList,
  parsePort,
} from './net-allow.js';

/** Addresses tried per request, at most (a name may resolve to many). */
const MAX_ADDRESSES = 8;
/** How long one address may take to accept the connection. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Where a request may go: the addresses of `host` it may connect to, in order, or why not.
 * `host` must match an entry together with `port` (no port in the entry: 80 and 443 only);
 * then the name is resolved here, once, and every address it resolves to is checked: an
 * address inside the host or its networks (loopback, private, link-local, CGNAT, unique-local,
 * IPv4 in IPv6) is refused unless an entry names exactly this host and this port. The caller
 * connects to these addresses, not to the name, so no second lookup can answer otherwise (DNS
 * rebinding).
 */
export async function resolveAllowed(
  entries: readonly AllowEntry[],
  requestedHost: string,
  port: number,
  resolve: (host: string) => Promise<string[]> = resolveAll,
): Promise<{ addresses: string[] } | { refused: string }> {
  const host = normalizeHost(requestedHost);
  if (host === undefined) return { refused: `${requestedHost.slice(0, 300)} is not a host name` };
  if (matchingEntries(entries, host, port).length === 0) {
    return { refused: `${host}:${port} is not on the sandbox's network allow-list` };
  }
  let addresses: string[];
  try {
    addresses = nodeNet().isIP(host) === 0 ? await resolve(host) : [host];
  } catch {
    return { refused: `${host} could not be resolved` };
  }
  if (addresses.length === 0) return { refused: `${host} could not be resolved` };
  const internal = addresses.filter(isInternalAddress);
  if (internal.length > 0 && !namesExactly(entries, host, port)) {
    return {
      refused:
        `${host} resolves to ${internal[0]}, an address of this host or its private network; ` +
        `only an allow-list entry naming exactly ${host.includes(':') ? `[${host}]` : host}:${port} reaches it`,
    };
  }
  return { addresses: addresses.slice(0, MAX_ADDRESSES) };
}

async function resolveAll(host: string): Promise<string[]> {
  const found = await dnsPromises().lookup(host, { all: true, verbatim: true });
  return found.map((a) => a.address);
}

/**
 * The sandbox's only way out when its network is an allow-list: an HTTP proxy on a Unix
 * socket (bound into the sandbox, whose own network has only loopback). `CONNECT host:port`
 * (HTTPS, or any TCP the entry's port serves) and absolute-URI requests (HTTP) go through when
 * host and port are allowed (`resolveAllowed`); anything else gets 403. Names are resolved
 * here, on the host: the sandbox has no DNS.
 */
export async function startAllowListProxy(
  socketPath: string,
  allow: readonly string[],
  /** How names are resolved (the system's resolver; a test passes its own DNS). */
  resolve: (host: string) => Promise<string[]> = resolveAll,
): Promise<{ close(): Promise<void> }> {
  const entries = parseAllowList(allow);
  const open = new Set<Socket>();
  const server: Server = nodeNet().createServer((client) => {
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
      // Held until the upstream connection is made: what the client sends meanwhile waits.
      client.pause();
      route(client, head, end + 4, { entries, resolve }, open);
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
  allow: { entries: readonly AllowEntry[]; resolve: (host: string) => Promise<string[]> },
  open: Set<Socket>,
): void {
  const requestLine = head.subarray(0, head.indexOf('\r\n')).toString('latin1');
  const [method = '', target = '', version = 'HTTP/1.1'] = requestLine.split(' ');
  let host: string;
  let port: number | null;
  let rest: Buffer;
  if (method === 'CONNECT') {
    const parts = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]/@]+):([0-9]+)$/.exec(target);
    if (parts === null) {
      deny(client, 400, 'CONNECT takes host:port');
      return;
    }
    host = parts[1]!;
    port = parsePort(parts[2]!);
    rest = head.subarray(bodyStart);
  } else {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      deny(client, 400, 'only proxy requests (absolute URLs or CONNECT) are served');
      return;
    }
    if (url.protocol !== 'http:' || url.username !== '' || url.password !== '') {
      deny(client, 400, 'plain requests take an http:// URL (HTTPS goes through CONNECT)');
      return;
    }
    host = url.hostname;
    port = url.port === '' ? 80 : parsePort(url.port);
    // Forward the request in origin form: the rest of the head and any body as received.
    const line = `${method} ${url.pathname}${url.search} ${version}`;
    rest = Buffer.concat([Buffer.from(line, 'latin1'), head.subarray(head.indexOf('\r\n'))]);
  }
  if (port === null) {
    deny(client, 403, 'the port is not a whole number from 1 to 65535');
    return;
  }
  const to = port;
  void resolveAllowed(allow.entries, host, to, allow.resolve).then((verdict) => {
    if ('refused' in verdict) {
      deny(client, 403, verdict.refused);
      return;
    }
    dial(client, verdict.addresses, to, method === 'CONNECT', rest, open);
  });
}

/** Connects to the checked addresses in turn (never to the name again) and pipes the two ends. */
function dial(
  client: Socket,
  addresses: readonly string[],
  port: number,
  tunnel: boolean,
  rest: Buffer,
  open: Set<Socket>,
): void {
  const [address, ...others] = addresses;
  if (address === undefined || client.destroyed) {
    if (tunnel && !client.destroyed) deny(client, 502, `could not reach port ${port}`);
    else client.destroy();
    return;
  }
  const upstream = nodeNet().connect({ host: address, port, timeout: CONNECT_TIMEOUT_MS });
  open.add(upstream);
  let connected = false;
  upstream.on('close', () => open.delete(upstream));
  upstream.on('timeout', () => {
    if (!connected) upstream.destroy(new Error('timed out'));
  });
  upstream.on('error', () => {
    upstream.destroy();
    if (!connected) dial(client, others, port, tunnel, rest, open);
    else client.destroy();
  });
  upstream.on('connect', () => {
    connected = true;
    upstream.setTimeout(0);
    if (tunnel) client.write('HTTP/1.1 200 Connection established\r\n\r\n');
    if (rest.length > 0) upstream.write(rest);
    client.pipe(upstream).pipe(client);
    client.resume();
  });
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  502: 'Bad Gateway',
};

function deny(client: Socket, status: number, why: string): void {
  const text = `agate sandbox: ${why}\n`;
  client.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}
