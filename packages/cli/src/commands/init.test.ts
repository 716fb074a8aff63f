import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../errors.js';
import { main } from '../program.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agate-init-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function agate(argv: string[]) {
  let out = '';
  let err = '';
  const code = await main(argv, {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
    env: {},
    isTTY: false,
    onInterrupt: () => () => {},
  });
  return { code, out, err };
}

describe('agate init', () => {
  it('writes the project npm create agate writes, and says what to type next', async () => {
    const target = join(dir, 'calc');
    const { code, out } = await agate(['init', target, '--name', 'calc-agent']);
    expect(code).toBe(ExitCode.ok);
    expect(out).toContain('npx agate run agent.tsx --scripted script.json');
    const pkg = JSON.parse(await readFile(join(target, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({ name: 'calc-agent', type: 'module' });
    expect(await readFile(join(target, 'agent.tsx'), 'utf8')).toContain('useGate(');
  });

  it('refuses a directory with files in it (exit 2), changing nothing', async () => {
    const target = join(dir, 'taken');
    await agate(['init', target]);
    await writeFile(join(target, 'agent.tsx'), 'mine');
    const { code, err } = await agate(['init', target]);
    expect(code).toBe(ExitCode.usage);
    expect(err).toMatch(/^agate: .* is not empty .*Choose a new directory name/);
    expect(await readFile(join(target, 'agent.tsx'), 'utf8')).toBe('mine');
  });
});
