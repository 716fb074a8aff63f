import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { childProcess, dnsPromises, nodeCrypto, nodeNet, nodeUtil } from './builtins.js';

const SRC = fileURLToPath(new URL('..', import.meta.url));
const LAZY = ['child_process', 'net', 'dns/promises', 'util', 'crypto'];
/** A value import (not `import type`) of one of LAZY, single- or multi-line. */
const VALUE_IMPORT = new RegExp(
  `^import\\s+(?!type\\b)[^;]*?from\\s+'node:(${LAZY.join('|').replace('/', '\\/')})';`,
  'gm',
);

function sources(): string[] {
  return (readdirSync(SRC, { recursive: true }) as string[]).filter(
    (path) =>
      /\.tsx?$/.test(path) &&
      !/\.test(-d)?\.tsx?$/.test(path) &&
      !path.includes('__fixtures__') &&
      path !== 'ground/builtins.ts',
  );
}

describe('built-in modules loaded when used (issue 51 item 4)', () => {
  it('no source module imports child_process, net, dns, util or crypto at import time', () => {
    const offenders = sources().flatMap((path) =>
      [...readFileSync(`${SRC}/${path}`, 'utf8').matchAll(VALUE_IMPORT)].map(
        (m) => `${path}: node:${m[1]}`,
      ),
    );
    expect(offenders).toEqual([]);
  });

  it('the scan sees a value import, and lets a type import through', () => {
    const text = [
      "import type { Server } from 'node:net';",
      "import {\n  lookup,\n  type LookupAddress,\n} from 'node:dns/promises';",
      "import { spawn } from 'node:child_process';",
    ].join('\n');
    expect([...text.matchAll(VALUE_IMPORT)].map((m) => m[1])).toEqual([
      'dns/promises',
      'child_process',
    ]);
  });

  it('hands out the real modules', async () => {
    expect(childProcess().spawn).toBe((await import('node:child_process')).spawn);
    expect(nodeNet().isIP('127.0.0.1')).toBe(4);
    expect(dnsPromises().lookup).toBe((await import('node:dns/promises')).lookup);
    expect(nodeUtil().stripVTControlCharacters('\u001b[31mred\u001b[0m')).toBe('red');
    expect(nodeCrypto().createHash).toBe((await import('node:crypto')).createHash);
  });
});
