import { nodeNet } from '../ground/builtins.js';
import { NetworkAllowEntryError } from './shell-errors.js';

/**
 * One entry of `sandbox.network.allow`: `host[:port]`, where host is a name (`example.com`),
 * `*.` and a name (its subdomains), an IPv4 address, or an IPv6 address in brackets.
 */
export interface AllowEntry {
  /** Lower case, no trailing dot; an IP address in its canonical form, IPv6 without brackets. */
  host: string;
  /** `*.example.com`: any name ending in `.example.com` (not `example.com` itself). */
  wildcard: boolean;
  /** The port the entry names, or undefined: then 80 and 443 only. */
  port: number | undefined;
}

/** Ports an entry without one allows: plain HTTP and HTTPS. */
export const WEB_PORTS: readonly number[] = [80, 443];
/** Longer entries are refused: a DNS name is at most 253 characters. */
const MAX_ENTRY_CHARS = 300;

const NAME =
  /^(\*\.)?([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Parses one entry; a malformed one is a `NetworkAllowEntryError` that says what is expected. */
export function parseAllowEntry(entry: string): AllowEntry {
  const bad = (why: string) =>
    new NetworkAllowEntryError(
      `sandbox.network.allow entry ${JSON.stringify(entry.slice(0, MAX_ENTRY_CHARS))} ${why}; ` +
        'write host[:port]: registry.npmjs.org, *.example.com, localhost:8080, 10.0.0.5:5432, [::1]:8080 ' +
        '(without a port, 80 and 443 only).',
    );
  if (typeof entry !== 'string' || entry.length === 0 || entry.length > MAX_ENTRY_CHARS) {
    throw bad('is empty or too long');
  }
  let hostPart = entry;
  let portPart: string | undefined;
  if (entry.startsWith('[')) {
    const close = entry.indexOf(']');
    if (close < 0) throw bad('opens a bracket it does not close');
    hostPart = entry.slice(1, close);
    const after = entry.slice(close + 1);
    if (after !== '') {
      if (!after.startsWith(':'))
        throw bad('has something after its IPv6 address other than :port');
      portPart = after.slice(1);
    }
    if (nodeNet().isIP(hostPart) !== 6) throw bad('has no IPv6 address in its brackets');
  } else {
    const colon = entry.lastIndexOf(':');
    if (colon >= 0) {
      if (entry.indexOf(':') !== colon) throw bad('is an IPv6 address without brackets');
      hostPart = entry.slice(0, colon);
      portPart = entry.slice(colon + 1);
    }
  }
  const port = portPart === undefined ? undefined : parsePort(portPart);
  if (port === null) throw bad('has a port that is not a whole number from 1 to 65535');
  if (entry.startsWith('[')) {
    return { host: canonicalIp(hostPart) ?? hostPart, wildcard: false, port };
  }
  const host = hostPart.toLowerCase().replace(/\.$/, '');
  if (nodeNet().isIP(host) === 4) return { host, wildcard: false, port };
  const match = NAME.exec(host);
  if (match === null || host.length > 253) {
    throw bad('is not a host name, an IPv4 address or a bracketed IPv6 address');
  }
  if (/^\d+$/.test(host.split('.').pop() ?? '')) {
    // `127.1`, `0x7f.1` and the like: numbers a resolver reads as an address.
    throw bad('looks like a shortened IPv4 address; write it in full');
  }
  const wildcard = match[1] !== undefined;
  return { host: wildcard ? host.slice(2) : host, wildcard, port };
}

/** Parses every entry, or throws `NetworkAllowEntryError` for the first malformed one. */
export function parseAllowList(entries: readonly string[]): AllowEntry[] {
  if (!Array.isArray(entries)) {
    throw new NetworkAllowEntryError(
      'sandbox.network.allow must be an array of host[:port] entries.',
    );
  }
  return entries.map(parseAllowEntry);
}

/** A port as given in an entry or a request: 1–65535, decimal, no sign; null otherwise. */
export function parsePort(text: string): number | null {
  if (!/^[0-9]{1,5}$/.test(text)) return null;
  const port = Number(text);
  return port >= 1 && port <= 65_535 ? port : null;
}

/**
 * A requested host in the form entries are kept in: lower case, no trailing dot, an IP address
 * canonical (so `[0:0::1]` and `[::1]` are one host), IPv6 without brackets. Undefined when it
 * is neither a name nor an address.
 */
export function normalizeHost(host: string): string | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (nodeNet().isIP(bare) !== 0) return canonicalIp(bare);
  const name = bare.toLowerCase().replace(/\.$/, '');
  return NAME.test(name) && !name.startsWith('*.') && name.length <= 253 ? name : undefined;
}

/** The entries that let `host` (normalized) through on `port`. */
export function matchingEntries(
  entries: readonly AllowEntry[],
  host: string,
  port: number,
): AllowEntry[] {
  return entries.filter((e) => {
    const hostMatches = e.wildcard ? host.endsWith(`.${e.host}`) : host === e.host;
    const portMatches = e.port === undefined ? WEB_PORTS.includes(port) : e.port === port;
    return hostMatches && portMatches;
  });
}

/** An entry names exactly this host and this port: only such an entry reaches a private address. */
export function namesExactly(entries: readonly AllowEntry[], host: string, port: number): boolean {
  return entries.some((e) => !e.wildcard && e.host === host && e.port === port);
}

function canonicalIp(address: string): string | undefined {
  const bytes = ipBytes(address);
  if (bytes === undefined) return undefined;
  if (bytes.length === 4) return bytes.join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return groups.join(':');
}

/** The bytes of an IPv4 (4) or IPv6 (16) address in text; undefined for anything else. */
export function ipBytes(address: string): number[] | undefined {
  const family = nodeNet().isIP(address);
  if (family === 4) return address.split('.').map(Number);
  if (family !== 6) return undefined;
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    tail = text
      .slice(lastColon + 1)
      .split('.')
      .map(Number);
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const [head = '', rest] = text.split('::');
  const toGroups = (part: string) => (part === '' ? [] : part.split(':'));
  const first = toGroups(head);
  const last = rest === undefined ? [] : toGroups(rest);
  const missing = 8 - first.length - last.length;
  const groups = [...first, ...Array<string>(rest === undefined ? 0 : missing).fill('0'), ...last];
  if (groups.length !== 8) return undefined;
  const bytes = groups.flatMap((g) => {
    const n = Number.parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

const inV4 = (b: readonly number[], net: readonly number[], bits: number): boolean => {
  for (let i = 0; i < 4; i++) {
    const take = Math.max(0, Math.min(8, bits - i * 8));
    const mask = (0xff << (8 - take)) & 0xff;
    if ((b[i]! & mask) !== (net[i]! & mask)) return false;
  }
  return true;
};

/**
 * Addresses that lead into the host or its networks rather than out to the internet: this
 * host (0/8, loopback 127/8), private (10/8, 172.16/12, 192.168/16), carrier-grade NAT
 * (100.64/10), link-local (169.254/16, where cloud metadata services answer), multicast and
 * reserved (224/3), and in IPv6 `::`, `::1`, unique-local (fc00::/7), link-local (fe80::/10),
 * multicast (ff00::/8), and IPv4 addresses carried in IPv6 (mapped `::ffff:a.b.c.d`,
 * compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`), judged by the IPv4 inside.
 */
export function isInternalAddress(address: string): boolean {
  const b = ipBytes(address);
  if (b === undefined) return true;
  if (b.length === 4) {
    return (
      inV4(b, [0, 0, 0, 0], 8) ||
      inV4(b, [10, 0, 0, 0], 8) ||
      inV4(b, [100, 64, 0, 0], 10) ||
      inV4(b, [127, 0, 0, 0], 8) ||
      inV4(b, [169, 254, 0, 0], 16) ||
      inV4(b, [172, 16, 0, 0], 12) ||
      inV4(b, [192, 168, 0, 0], 16) ||
      inV4(b, [224, 0, 0, 0], 3)
    );
  }
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const v4 = (at: number) => isInternalAddress(b.slice(at, at + 4).join('.'));
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return v4(12); // ::ffff:a.b.c.d
  if (zeros(0, 12)) return true; // ::, ::1, and the deprecated ::a.b.c.d
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) {
    return v4(12); // 64:ff9b::a.b.c.d (NAT64)
  }
  if (b[0] === 0x20 && b[1] === 0x02) return v4(2); // 2002:aabb:ccdd:: (6to4)
  return (b[0]! & 0xfe) === 0xfc || (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) || b[0] === 0xff;
}
