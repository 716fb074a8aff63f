import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diskUsage, measureNodeModules } from './node-modules.js';

const root = mkdtempSync(join(tmpdir(), 'agate-node-modules-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A node_modules with many one-byte files (the blocks weigh more than the bytes) and a hard link. */
function tree(): string {
  const nodeModules = join(root, 'node_modules');
  for (const name of ['small', '@scope/pkg']) {
    const dir = join(nodeModules, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0' }));
    for (let i = 0; i < 50; i++) writeFileSync(join(dir, `f${i}.js`), 'x');
  }
  writeFileSync(join(nodeModules, 'small', 'big.bin'), Buffer.alloc(100_000));
  linkSync(join(nodeModules, 'small', 'big.bin'), join(nodeModules, '@scope/pkg', 'big.bin'));
  return nodeModules;
}

describe('measureNodeModules', () => {
  const nodeModules = tree();
  const facts = measureNodeModules(nodeModules);

  it('counts the packages and their bytes, a hard link once', () => {
    expect(facts.packages).toBe(2);
    const manifests = facts.sizes.reduce((sum, p) => sum + p.bytes, 0) - 100_000 - 100;
    expect(manifests).toBeGreaterThan(0);
    expect(facts.bytes).toBeLessThan(101_000);
  });

  it('counts what the tree takes on disk as du does', () => {
    const du = Number(
      execFileSync('du', ['-s', '-B1', nodeModules], { encoding: 'utf8' }).split('\t')[0],
    );
    expect(diskUsage(nodeModules)).toBe(du);
    expect(facts.diskBytes).toBe(du);
    // 100 one-byte files take a block each: on disk is more than the bytes.
    expect(facts.diskBytes).toBeGreaterThan(facts.bytes);
  });
});
