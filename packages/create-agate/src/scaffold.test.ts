import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };
import { main } from './main.js';
import { packageName, ScaffoldError, scaffold } from './scaffold.js';
import { VERSION } from './version.js';

const dirs: string[] = [];
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'create-agate-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const capture = () => {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
};

describe('scaffold', () => {
  it('writes an ESM project depending on this version of Agate', async () => {
    const dir = join(temp(), 'My Agent');
    const result = await scaffold(dir);
    expect(result.name).toBe('my-agent');
    expect(result.files.sort()).toEqual(
      [
        '.gitignore',
        'README.md',
        'agent.test.tsx',
        'agent.tsx',
        'package.json',
        'script.json',
        'tsconfig.json',
      ].sort(),
    );
    const written = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(written).toMatchObject({
      name: 'my-agent',
      type: 'module',
      scripts: { test: 'vitest run' },
      dependencies: { '@agate/core': `^${VERSION}`, '@agate/cli': `^${VERSION}` },
      devDependencies: { '@agate/testing': `^${VERSION}` },
    });
    expect(JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8')).compilerOptions.jsx).toBe(
      'react-jsx',
    );
  });

  it('refuses a directory with files in it, and overwrites nothing', async () => {
    const dir = temp();
    writeFileSync(join(dir, 'agent.tsx'), 'mine');
    await expect(scaffold(dir)).rejects.toThrow(ScaffoldError);
    await expect(scaffold(dir)).rejects.toThrow(/is not empty .*npm create agate@latest my-agent/);
    expect(readFileSync(join(dir, 'agent.tsx'), 'utf8')).toBe('mine');
  });

  it('makes package names npm accepts', () => {
    expect(packageName('Hello World!')).toBe('hello-world');
    expect(packageName('.hidden')).toBe('hidden');
    expect(packageName('---')).toBe('my-agent');
  });

  it("its version is the package's", () => {
    expect(VERSION).toBe(pkg.version);
  });
});

describe('create-agate', () => {
  it('prints what to type next', async () => {
    const cwd = temp();
    const { io, out } = capture();
    expect(await main([join(cwd, 'bot'), '--name', 'bot'], io)).toBe(0);
    expect(out.join('')).toMatch(
      /npm install\n {2}npm test\n {2}npx agate run agent.tsx --scripted script.json/,
    );
  });

  it('says what is wrong and what to type, with exit code 2 for usage', async () => {
    const { io, err } = capture();
    expect(await main([], io)).toBe(2);
    expect(err.join('')).toContain('npm create agate@latest my-agent');
    expect(await main(['x', '--bogus'], io)).toBe(2);
    expect(err.join('')).toContain('create-agate --help');
  });
});
