/**
 * Issue 39 item 3: one CLI, whatever runs it. `pnpm agate` and `bin/agate.js` in the
 * repository run the same agent files the same way (the installed bin runs them in
 * packages/create-agate/src/packed-install.test.ts): any `.tsx`/`.ts` path inside or outside
 * the repository, with or without package.json or tsconfig.json, in node_modules or a
 * dot-folder, with exactly one copy of @agate/core loaded. The oldest Node that package.json's
 * engines allow runs them all too, and the release before it is refused in one line.
 *
 * Every layout runs once per way its loading can differ, not once per entry point: through the
 * repository's bin (the CLI's own sources through tsx, then the agent's registration replacing
 * theirs), and on the oldest Node through the built CLI (__fixtures__/built-cli.ts: what an
 * installed project runs, the agent loaded by the same src/run/typescript-loader.ts). `pnpm
 * agate` is that same bin behind pnpm, and the repository's bin on the oldest Node loads the
 * same sources: one layout each shows them. On the oldest Node, the built CLI runs only the two
 * layouts inside the repository: every other layout (and the repository's own agent) runs on
 * that Node through the really installed CLI in packages/create-agate/src/packed-install.test.ts
 * (part of `pnpm test`), the same processes a second time here.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireSystem } from '@agate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cachedNodeBinary,
  enginesFloor,
  expectLayoutRan,
  inTurn,
  nodeBinary,
  runAgate,
} from './__fixtures__/agate-process.js';
import {
  type AgentLayout,
  layoutScript,
  writeAgentLayouts,
  writeLayoutAgent,
} from './__fixtures__/agent-layouts.js';
import { builtCliBin } from './__fixtures__/built-cli.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/agate.js', import.meta.url));

let scratch: string;
let inRepo: string;
let layouts: AgentLayout[];
let script: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'agate-entry-'));
  layouts = writeAgentLayouts(join(scratch, 'layouts'));
  script = layoutScript(join(scratch, 'layouts'));
  // Inside the repository but outside what its tsconfig.json includes (where `agate init`
  // writes a project, a scratch file); .gitignore keeps these folders out.
  inRepo = mkdtempSync(join(REPO, 'agate-test-'));
  writeLayoutAgent(join(inRepo, 'agent.tsx'));
  layouts.push(
    {
      name: 'a .tsx inside the repository that its tsconfig.json leaves out',
      file: join(inRepo, 'agent.tsx'),
    },
    {
      name: 'a .tsx inside the repository that its tsconfig.json includes',
      file: fileURLToPath(new URL('./__fixtures__/twice-agent.tsx', import.meta.url)),
    },
  );
});

afterAll(() => {
  if (inRepo) rmSync(inRepo, { recursive: true, force: true });
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** The layouts through `command ...prefix run <file>`, three processes at a time. */
async function runLayouts(
  command: string,
  prefix: readonly string[],
  which: (all: AgentLayout[]) => AgentLayout[] = (all) => all,
): Promise<void> {
  const chosen = which(layouts);
  expect(chosen.length).toBeGreaterThan(0);
  const outcomes = await inTurn(chosen, 3, (layout) =>
    runAgate(command, [...prefix, 'run', layout.file, '--scripted', script, '--plain'], {
      cwd: REPO,
      scratch,
    }),
  );
  expect(outcomes).toHaveLength(chosen.length);
  outcomes.forEach((outcome, i) => {
    expectLayoutRan(outcome, chosen[i] as AgentLayout);
  });
}

/** The layout a person starts with: a lone `.tsx` outside any project. */
const bare = (all: AgentLayout[]) =>
  all.filter((l) => l.name.startsWith('a .tsx in a folder with no'));

/** The layouts the packed tests cannot have: agent files inside this repository. */
const insideRepository = (all: AgentLayout[]) =>
  all.filter((l) => l.name.startsWith('a .tsx inside the repository'));

describe('pnpm agate', () => {
  it('runs the bin below (a lone agent file), on one copy of @agate/core', async () => {
    await runLayouts('pnpm', ['-s', 'agate'], bare);
  }, 120_000);
});

describe('bin/agate.js in the repository', () => {
  it('runs every layout of agent file, on one copy of @agate/core', async () => {
    await runLayouts(process.execPath, [BIN]);
  }, 180_000);
});

const ENGINES: string = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
).engines.node;
const { floor, before } = enginesFloor(ENGINES);

describe(`the oldest Node the engines allow (${floor})`, () => {
  it('every package.json, the root included, names the same engines', () => {
    const folders = ['core', 'cli', 'testing', 'postgres', 'dbos', 'create-agate'];
    const files = [
      join(REPO, 'package.json'),
      ...folders.map((folder) => join(REPO, 'packages', folder, 'package.json')),
    ];
    const engines = files.map((file) => JSON.parse(readFileSync(file, 'utf8')).engines.node);
    expect(new Set(engines)).toEqual(new Set([ENGINES]));
  });

  it("finds a Node npx installed before in npx's cache: that exact version, executable", () => {
    const cache = join(scratch, 'npm-cache');
    const install = (set: string, version: string, mode: number) => {
      const dir = join(cache, '_npx', set, 'node_modules', 'node');
      mkdirSync(join(dir, 'bin'), { recursive: true });
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'node', version }));
      writeFileSync(join(dir, 'bin', 'node'), '');
      chmodSync(join(dir, 'bin', 'node'), mode);
    };
    install('a1', `${floor}0`, 0o755);
    install('b2', before, 0o755);
    install('c3', floor, 0o644);
    install('d4', floor, 0o755);
    mkdirSync(join(cache, '_npx', 'e5'));
    expect(cachedNodeBinary(floor, cache)).toBe(join(cache, '_npx/d4/node_modules/node/bin/node'));
    expect(cachedNodeBinary(before, cache)).toBe(join(cache, '_npx/b2/node_modules/node/bin/node'));
    expect(cachedNodeBinary('20.0.0', cache)).toBeUndefined();
    expect(cachedNodeBinary(floor, join(scratch, 'no-cache'))).toBeUndefined();
  });

  const binaries: Record<string, string> = {};
  const fetched = (version: string, tests: string) =>
    requireSystem({
      tests,
      needs: `Node ${version} from the npm registry (npx -y -p node@${version})`,
      enable: 'let npx reach the npm registry',
      probe: () => {
        const binary = nodeBinary(version);
        if (binary !== undefined) binaries[version] = binary;
        return binary !== undefined;
      },
    });

  it.skipIf(!fetched(floor, `the CLI on Node ${floor}`))(
    `runs the layouts inside the repository on Node ${floor}, built as installed`,
    async () => {
      await runLayouts(binaries[floor] as string, [builtCliBin()], insideRepository);
    },
    180_000,
  );

  it.skipIf(!fetched(floor, `the repository's bin on Node ${floor}`))(
    `runs the repository's bin (its sources through tsx) on Node ${floor}`,
    async () => {
      await runLayouts(binaries[floor] as string, [BIN], bare);
    },
    120_000,
  );

  it.skipIf(!fetched(before, `the CLI refusing Node ${before}`))(
    `refuses Node ${before} in one line that says what it needs`,
    async () => {
      const outcome = await runAgate(binaries[before] as string, [BIN, '--version'], {
        cwd: REPO,
        scratch,
      });
      expect(outcome.code).toBe(2);
      expect(outcome.stdout).toBe('');
      expect(outcome.stderr).toBe(
        `agate: Node ${before} cannot run agate: it needs Node ${floor}+, 24.11.1+, 25.1.0+ ` +
          'or 26 and later (package.json engines). Install one: https://nodejs.org/en/download\n',
      );
    },
    60_000,
  );
});
