import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const examplesDir = join(root, 'examples');

interface Pkg {
  name: string;
  scripts?: Record<string, string>;
}

const readPkg = (dir: string): Pkg =>
  JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Pkg;

const examples = readdirSync(examplesDir, { withFileTypes: true })
  .filter((e) => e.isDirectory() && existsSync(join(examplesDir, e.name, 'package.json')))
  .map((e) => e.name)
  .sort();

/** Every workspace example by package name: a README's `pnpm --filter NAME` must name one. */
const byName = new Map(examples.map((name) => [readPkg(join(examplesDir, name)).name, name]));

/**
 * The `pnpm` commands of a README's ```sh blocks that run a package script:
 * `pnpm [-s] [--filter NAME] SCRIPT`, with the package they run it in (the README's own
 * unless `--filter` names another). pnpm's own commands (exec, install, …) are not scripts.
 */
function scriptCommands(readme: string, own: string): { pkg: string; script: string }[] {
  const shell = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).join('\n');
  const builtIn = new Set(['install', 'exec', 'add', 'dlx', 'run', 'agate']);
  const out: { pkg: string; script: string }[] = [];
  for (const m of shell.matchAll(
    /^(?:\S+=\S+ )*pnpm (?:-s )?(?:--filter (\S+) )?([a-z][\w:-]*)/gm,
  )) {
    if (builtIn.has(m[2]!)) continue;
    out.push({ pkg: m[1] ?? own, script: m[2]! });
  }
  return out;
}

describe('the examples (issue 50, item 6)', () => {
  it('are found', () => {
    expect(examples.length).toBeGreaterThanOrEqual(10);
  });

  for (const example of examples) {
    it(`${example} has a README: what it shows, a run command its package has, what to change first`, () => {
      const dir = join(examplesDir, example);
      const readmePath = join(dir, 'README.md');
      expect(existsSync(readmePath), `examples/${example}/README.md`).toBe(true);
      const readme = readFileSync(readmePath, 'utf8');
      // What it shows: a title and a paragraph before any section.
      expect(readme).toMatch(/^# .+\n\n[A-Za-z`*]/);
      expect(readme, 'a "## What to change first" section').toMatch(/^## What to change first$/m);

      const own = readPkg(dir).name;
      const commands = scriptCommands(readme, own);
      expect(commands.length, 'a pnpm command that runs it, in a ```sh block').toBeGreaterThan(0);
      for (const { pkg, script } of commands) {
        // The root's scripts (pnpm demo, pnpm agate …) are named from the repository root.
        const target =
          pkg === own ? dir : byName.has(pkg) ? join(examplesDir, byName.get(pkg)!) : undefined;
        expect(target, `--filter ${pkg} names an example package`).toBeDefined();
        const scripts = readPkg(target!).scripts ?? {};
        const rootScripts = readPkg(root).scripts ?? {};
        expect(
          scripts[script] ?? (pkg === own ? rootScripts[script] : undefined),
          `pnpm ${script} in ${pkg}`,
        ).toBeDefined();
      }
      expect(
        commands.some(({ pkg, script }) => {
          const target = pkg === own ? dir : join(examplesDir, byName.get(pkg)!);
          return readPkg(target).scripts?.[script] !== undefined;
        }),
        "a command that runs one of the example's own scripts (or, for a library, another example's)",
      ).toBe(true);
    });
  }
});
