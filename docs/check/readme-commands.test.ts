import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CHROMIUM_REQUIREMENT } from '../../vitest.setup-chromium.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The README's commands for a fresh machine: those that install the workspace first (the demo
 * and the tests). Its other commands (making the tarballs) run after one of these.
 */
async function readmeCommands(): Promise<string[]> {
  const readme = await readFile(resolve(root, 'README.md'), 'utf8');
  return [
    ...readme.matchAll(
      /^npx -y -p node@24 -p pnpm@10 -c '(pnpm install --frozen-lockfile && [^']+)'$/gm,
    ),
  ].map((m) => m[1]!);
}

describe("the README's commands", () => {
  it('are two, one for the demo and one for the tests, printing no pnpm noise on failure', async () => {
    const commands = await readmeCommands();
    expect(commands).toEqual([
      'pnpm install --frozen-lockfile && pnpm -s demo',
      'pnpm install --frozen-lockfile && pnpm -s test',
    ]);
  });

  it('CI runs exactly the README test command', async () => {
    const ci = await readFile(resolve(root, '.ci/run'), 'utf8');
    const [, test] = await readmeCommands();
    expect(ci).toContain(`npx -y -p node@24 -p pnpm@10 -c '${test}'`);
  });

  it('name only scripts the root package.json has (README and getting started)', async () => {
    const pkg = JSON.parse(await readFile(resolve(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const builtIn = new Set(['install', 'exec', 'add', 'run']);
    for (const page of ['README.md', 'docs/getting-started.md']) {
      const text = await readFile(resolve(root, page), 'utf8');
      const shell = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).join('\n');
      const named = [...shell.matchAll(/\bpnpm (?:-s )?([a-z][\w:-]*)/g)].map((m) => m[1]!);
      expect(named.length, page).toBeGreaterThan(0);
      for (const script of named.filter((n) => !builtIn.has(n))) {
        expect(pkg.scripts[script], `${page}: pnpm ${script}`).toBeDefined();
      }
    }
  });

  it('CI installs every Debian package a suite requires (so AGATE_REQUIRE_SYSTEM=1 never fails for want of one)', async () => {
    const ci = await readFile(resolve(root, '.ci/run'), 'utf8');
    const installed = new Set([...ci.matchAll(/missing\+=\(([\w.+-]+)\)/g)].map((m) => m[1]));
    // Every `debianPackage` in the repository's tracked sources, but requireSystem's own
    // self-tests (packages for binaries that never exist) and this file.
    const sources = execFileSync(
      'git',
      [
        'grep',
        '-h',
        '-o',
        "debianPackage: '[a-z][^']*'",
        '--',
        '.',
        ':!packages/testing/src/system-requirements.test.ts',
        ':!docs/check/readme-commands.test.ts',
      ],
      { cwd: root, encoding: 'utf8' },
    );
    const named = new Set([
      ...[...sources.matchAll(/debianPackage: '([^']+)'/g)].map((m) => m[1]),
      CHROMIUM_REQUIREMENT.debianPackage,
    ]);
    for (const part of [
      'bubblewrap',
      'postgresql',
      'chromium-headless-shell',
      'git',
      'linux-libc-dev',
    ]) {
      expect(named, "the grep finds the suites' requirements").toContain(part);
    }
    for (const pkg of named) expect(installed, `.ci/run installs ${pkg}`).toContain(pkg);
  });
});
