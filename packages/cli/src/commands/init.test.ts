import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectFiles, TEMPLATE_NAMES } from 'create-agate';
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

  it('--template writes each template create-agate offers, the same files', async () => {
    for (const template of TEMPLATE_NAMES) {
      const target = join(dir, `from-${template}`);
      const { code, err } = await agate(['init', target, '--template', template, '--name', 'x']);
      expect(code, err).toBe(ExitCode.ok);
      const expected = projectFiles({ name: 'x', agateVersion: '^0.0.0', template });
      for (const file of Object.keys(expected)) {
        expect(existsSync(join(target, file)), `${template}: ${file}`).toBe(true);
      }
      expect(await readFile(join(target, 'agent.tsx'), 'utf8'), template).toBe(
        expected['agent.tsx'],
      );
    }
  });

  it('--template durable: the worker project, and what to run first (agate db create)', async () => {
    const target = join(dir, 'desk');
    const { code, out } = await agate(['init', target, '--template', 'durable']);
    expect(code).toBe(ExitCode.ok);
    expect(out).toMatch(/npm install\n.*\n {2}npm run db:create\n {2}npm test\n {2}npm run demo\n/);
    expect(await readFile(join(target, 'agent.tsx'), 'utf8')).toContain(
      'export const agents: DurableAgents',
    );
    const pkg = JSON.parse(await readFile(join(target, 'package.json'), 'utf8'));
    expect(pkg.dependencies).toHaveProperty('@agate/dbos');
  });

  it('refuses an unknown template (exit 2), listing the names, and writes nothing', async () => {
    const target = join(dir, 'unknown');
    const { code, err } = await agate(['init', target, '--template', 'chatbot']);
    expect(code).toBe(ExitCode.usage);
    expect(err).toContain(
      `there is no template "chatbot". The templates are: ${TEMPLATE_NAMES.join(', ')}`,
    );
    expect(existsSync(target)).toBe(false);
    const empty = await agate(['init', join(dir, 'unnamed'), '--template', '']);
    expect(empty.code).toBe(ExitCode.usage);
    expect(await readdir(dir)).not.toContain('unnamed');
  });
});
