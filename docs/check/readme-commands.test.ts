import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The README's two commands: the demo and the tests, each installing first. */
async function readmeCommands(): Promise<string[]> {
  const readme = await readFile(resolve(root, 'README.md'), 'utf8');
  return [...readme.matchAll(/^npx -y -p node@24 -p pnpm@10 -c '([^']+)'$/gm)].map((m) => m[1]!);
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
});
