import { describe, expect, it } from 'vitest';
import {
  isInternalAddress,
  matchingEntries,
  namesExactly,
  normalizeHost,
  parseAllowEntry,
  parseAllowList,
} from './net-allow.js';
import { resolveAllowed } from './net-proxy.js';
import { NetworkAllowEntryError } from './shell-errors.js';

describe('sandbox.network.allow entries: host[:port]', () => {
  it('parses names, wildcards, IPv4 and bracketed IPv6, with and without a port', () => {
    expect(parseAllowEntry('Registry.NPMjs.org.')).toEqual({
      host: 'registry.npmjs.org',
      wildcard: false,
      port: undefined,
    });
    expect(parseAllowEntry('*.example.com:8443')).toEqual({
      host: 'example.com',
      wildcard: true,
      port: 8443,
    });
    expect(parseAllowEntry('localhost:8080')).toEqual({
      host: 'localhost',
      wildcard: false,
      port: 8080,
    });
    expect(parseAllowEntry('10.0.0.5:5432')).toEqual({
      host: '10.0.0.5',
      wildcard: false,
      port: 5432,
    });
    expect(parseAllowEntry('[0:0::1]:8080')).toEqual({
      host: '0:0:0:0:0:0:0:1',
      wildcard: false,
      port: 8080,
    });
    expect(parseAllowEntry('[2001:db8::5]').port).toBeUndefined();
  });

  it('refuses a malformed entry with a typed error that says what to write', () => {
    for (const bad of [
      '',
      'http://example.com',
      'example.com/path',
      'example.com:0',
      'example.com:65536',
      'example.com:80x',
      'example.com:+80',
      'example.com:',
      '::1',
      '[::1',
      '[::1]x',
      '[example.com]:80',
      'user@example.com',
      'exa mple.com',
      '-example.com',
      '*.*.example.com',
      'example.*',
      '127.1',
      '0x7f.1',
      'x'.repeat(301),
    ]) {
      expect(() => parseAllowEntry(bad), bad).toThrow(NetworkAllowEntryError);
    }
    expect(() => parseAllowList(['ok.example', 'http://x'])).toThrow(
      /"http:\/\/x".*host\[:port\].*80 and 443 only/,
    );
  });

  it('matches host and port together; no port means 80 and 443', () => {
    const entries = parseAllowList(['localhost:8080', 'registry.npmjs.org', '*.example.com:8443']);
    expect(matchingEntries(entries, 'localhost', 8080)).toHaveLength(1);
    // The reported attack: localhost:8080 on the list, PostgreSQL's port asked for.
    expect(matchingEntries(entries, 'localhost', 55433)).toEqual([]);
    expect(matchingEntries(entries, 'registry.npmjs.org', 443)).toHaveLength(1);
    expect(matchingEntries(entries, 'registry.npmjs.org', 80)).toHaveLength(1);
    expect(matchingEntries(entries, 'registry.npmjs.org', 22)).toEqual([]);
    expect(matchingEntries(entries, 'api.example.com', 8443)).toHaveLength(1);
    expect(matchingEntries(entries, 'example.com', 8443)).toEqual([]);
    expect(matchingEntries(entries, 'evilexample.com', 8443)).toEqual([]);
    expect(namesExactly(entries, 'localhost', 8080)).toBe(true);
    expect(namesExactly(entries, 'registry.npmjs.org', 443)).toBe(false);
    expect(namesExactly(entries, 'api.example.com', 8443)).toBe(false);
  });

  it('normalizes a requested host as entries are kept', () => {
    expect(normalizeHost('[::1]')).toBe('0:0:0:0:0:0:0:1');
    expect(normalizeHost('LOCALHOST.')).toBe('localhost');
    expect(normalizeHost('*.example.com')).toBeUndefined();
    expect(normalizeHost('a b')).toBeUndefined();
  });

  it('tells addresses of the host and its networks from public ones', () => {
    for (const internal of [
      '127.0.0.1',
      '127.255.0.9',
      '0.0.0.0',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '100.64.0.1',
      '100.127.255.255',
      '169.254.169.254',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      'fe80::1%eth0',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      '::127.0.0.1',
      '64:ff9b::10.0.0.1',
      '2002:7f00:1::',
    ]) {
      expect(isInternalAddress(internal), internal).toBe(true);
    }
    for (const external of [
      '1.1.1.1',
      '8.8.8.8',
      '172.32.0.1',
      '172.15.255.255',
      '100.128.0.1',
      '192.169.0.1',
      '2606:4700::1111',
      '::ffff:1.1.1.1',
      '64:ff9b::808:808',
      '2002:808:808::',
    ]) {
      expect(isInternalAddress(external), external).toBe(false);
    }
  });
});

describe('where the proxy lets a request go (resolveAllowed)', () => {
  const dns = (table: Record<string, string[]>) => async (host: string) => {
    const found = table[host];
    if (found === undefined) throw new Error('ENOTFOUND');
    return found;
  };

  it('refuses a name that resolves to 127.0.0.1 unless an entry names that host and port', async () => {
    const resolve = dns({ 'rebind.example': ['127.0.0.1'], 'db.example': ['10.0.0.7'] });
    const wild = parseAllowList(['*.example', 'rebind.example']);
    expect(await resolveAllowed(wild, 'rebind.example', 443, resolve)).toEqual({
      refused: expect.stringContaining('resolves to 127.0.0.1'),
    });
    expect(await resolveAllowed(wild, 'db.example', 443, resolve)).toEqual({
      refused: expect.stringContaining('only an allow-list entry naming exactly db.example:443'),
    });
    const exact = parseAllowList(['db.example:5432']);
    expect(await resolveAllowed(exact, 'db.example', 5432, resolve)).toEqual({
      addresses: ['10.0.0.7'],
    });
  });

  it('refuses a name when any address it resolves to is internal', async () => {
    const resolve = dns({ 'mixed.example': ['93.184.215.14', '::ffff:127.0.0.1'] });
    expect(
      await resolveAllowed(parseAllowList(['mixed.example']), 'mixed.example', 443, resolve),
    ).toEqual({ refused: expect.stringContaining('::ffff:127.0.0.1') });
  });

  it('checks literal addresses without resolving them, and hands back what it checked', async () => {
    let lookups = 0;
    const resolve = async () => {
      lookups++;
      return ['93.184.215.14'];
    };
    expect(await resolveAllowed(parseAllowList(['[::1]:8080']), '[::1]', 8080, resolve)).toEqual({
      addresses: ['0:0:0:0:0:0:0:1'],
    });
    expect(await resolveAllowed(parseAllowList(['127.0.0.1']), '127.0.0.1', 80, resolve)).toEqual({
      refused: expect.stringContaining('127.0.0.1:80'),
    });
    expect(
      await resolveAllowed(parseAllowList(['public.example']), 'public.example', 443, resolve),
    ).toEqual({
      addresses: ['93.184.215.14'],
    });
    expect(lookups).toBe(1);
    expect(
      await resolveAllowed(parseAllowList(['public.example']), 'nope.example', 443, resolve),
    ).toEqual({
      refused: expect.stringContaining('not on the sandbox'),
    });
    expect(lookups).toBe(1);
  });
});
