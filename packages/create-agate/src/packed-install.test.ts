import { type SpawnSyncOptions, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  coreCopies,
  enginesFloor,
  expectLayoutRan,
  inTurn,
  nodeBinary,
  runAgate,
} from '../../cli/src/__fixtures__/agate-process.js';
import {
  type AgentLayout,
  layoutScript,
  writeAgentLayouts,
  writeLayoutAgent,
} from '../../cli/src/__fixtures__/agent-layouts.js';
import { requireSystem } from '../../testing/src/system-requirements.js';
import {
  cleanEnv,
  type Folder,
  PACKAGES_DIR,
  PUBLISHED,
  pack,
  stagePackage,
  tarballFiles,
} from './__fixtures__/stage-packages.js';

/**
 * Issue 26: every package packed, the tarballs installed in an empty directory (no workspace,
 * no links), and the project `npm create agate` writes passing its own tests and running its
 * agent there; an agent file in a folder of its own runs on the installed CLI.
 */
const REPO_BIN = fileURLToPath(new URL('../../cli/bin/agate.js', import.meta.url));
const REPO_AGENT = fileURLToPath(
  new URL('../../cli/src/__fixtures__/twice-agent.tsx', import.meta.url),
);

let root: string;
const tarballs = {} as Record<Folder, string>;
let project: string;

const run = (command: string, args: string[], options: SpawnSyncOptions = {}) =>
  spawnSync(command, args, { encoding: 'utf8', env: cleanEnv(), timeout: 90_000, ...options });

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'agate-packed-'));
  for (const folder of Object.keys(PUBLISHED) as Folder[]) {
    tarballs[folder] = pack(stagePackage(folder, join(root, 'stage')), join(root, 'tarballs'));
  }
  // `npm create agate@latest my-agent` runs create-agate's bin with the directory.
  const created = run('node', [join(root, 'stage/create-agate/dist/bin.js'), 'my-agent'], {
    cwd: root,
  });
  if (created.status !== 0) throw new Error(`create-agate failed: ${created.stderr}`);
  project = join(root, 'my-agent');
  // Point the @agate packages at the tarballs (the registry does not have these builds).
  const file = join(project, 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8'));
  const local = (folder: Folder) => `file:${tarballs[folder]}`;
  pkg.dependencies['@agate/core'] = local('core');
  pkg.dependencies['@agate/cli'] = local('cli');
  pkg.devDependencies['@agate/testing'] = local('testing');
  pkg.pnpm = {
    overrides: {
      '@agate/core': local('core'),
      '@agate/testing': local('testing'),
      '@agate/postgres': local('postgres'),
      'create-agate': local('create-agate'),
    },
  };
  writeFileSync(file, JSON.stringify(pkg, null, 2));
  // From the local store: offline once the registry's metadata is cached, else fetch only that.
  let install = run('pnpm', ['install', '--offline', '--config.confirmModulesPurge=false'], {
    cwd: project,
  });
  if (install.status !== 0) {
    install = run('pnpm', ['install', '--prefer-offline'], { cwd: project });
  }
  if (install.status !== 0)
    throw new Error(`install failed:\n${install.stdout}\n${install.stderr}`);
}, 180_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('the packed packages', () => {
  it('hold dist, README, LICENSE and package.json only (the CLI also its bin launcher)', () => {
    for (const [folder, tarball] of Object.entries(tarballs)) {
      const files = tarballFiles(tarball);
      const extra = files.filter(
        (f) =>
          !f.startsWith('dist/') &&
          !['package.json', 'README.md', 'LICENSE'].includes(f) &&
          !(folder === 'cli' && f === 'bin/agate.js'),
      );
      expect(extra, folder).toEqual([]);
      expect(
        files.some((f) => /\.test\.|__fixtures__|__snapshots__|^src\//.test(f)),
        folder,
      ).toBe(false);
      expect(files, folder).toEqual(expect.arrayContaining(['README.md', 'LICENSE']));
      expect(statSync(tarball).size, folder).toBeGreaterThan(0);
    }
  });

  it('the CLI does not depend on @agate/testing (an optional peer, for --scripted)', () => {
    const cli = JSON.parse(readFileSync(join(root, 'stage/cli/package.json'), 'utf8'));
    expect(cli.dependencies['@agate/testing']).toBeUndefined();
    expect(cli.peerDependenciesMeta['@agate/testing']).toEqual({ optional: true });
  });
});

describe('npm create agate, installed from the tarballs', () => {
  it('writes an ESM project with a tsconfig, an agent, a test, a script and a README', () => {
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
    expect(pkg.type).toBe('module');
    const tsconfig = JSON.parse(readFileSync(join(project, 'tsconfig.json'), 'utf8'));
    expect(tsconfig.compilerOptions.jsx).toBe('react-jsx');
    for (const f of ['agent.tsx', 'agent.test.tsx', 'script.json', 'README.md']) {
      expect(statSync(join(project, f)).isFile(), f).toBe(true);
    }
  });

  it('npm test passes', () => {
    const test = run('npm', ['test'], { cwd: project });
    expect(test.status, `${test.stdout}\n${test.stderr}`).toBe(0);
    expect(test.stdout).toMatch(/2 passed/);
  }, 90_000);

  it('npx agate run agent.tsx --scripted script.json: refused once, then completed', () => {
    // The installed bin, as `npx agate` finds it.
    const agate = run(
      join(project, 'node_modules/.bin/agate'),
      ['run', 'agent.tsx', '--scripted', 'script.json', '--plain'],
      { cwd: project },
    );
    expect(agate.status, `${agate.stdout}\n${agate.stderr}`).toBe(0);
    // The model tries to finish before checking: refused; the check clears the gate (the host).
    expect(agate.stdout).toMatch(/exit refused:\n\s+Gate "checked" is active/);
    expect(agate.stdout).toContain('gate checked: active → inactive (by host)');
    expect(agate.stdout).toMatch(/status: completed/);
    expect(agate.stderr).toBe('');
  }, 90_000);
});

/**
 * Issue 39 item 3: the installed bin runs every layout of agent file that `pnpm agate` and the
 * repository's bin run (packages/cli/src/entry-points.test.ts), on one copy of @agate/core,
 * also on the oldest Node the engines allow; and the repository's CLI runs the installed
 * project's agent on its own core, not the project's second copy.
 */
describe('agent files anywhere, on the installed CLI', () => {
  let layouts: AgentLayout[];
  let script: string;
  let installedBin: string;
  beforeAll(() => {
    layouts = writeAgentLayouts(join(root, 'layouts'));
    script = layoutScript(join(root, 'layouts'));
    // A package of agents, installed beside @agate/core: its .tsx source in node_modules.
    const shipped = join(project, 'node_modules/shipped-agents/agent.tsx');
    writeLayoutAgent(shipped);
    writeFileSync(
      join(project, 'node_modules/shipped-agents/package.json'),
      JSON.stringify({ name: 'shipped-agents', version: '1.0.0', type: 'module' }),
    );
    writeLayoutAgent(join(project, '.agents/agent.tsx'));
    layouts.push(
      { name: 'a .tsx a package ships, installed beside @agate/core', file: shipped },
      { name: 'a .tsx in a dot-folder of the project', file: join(project, '.agents/agent.tsx') },
      { name: 'a .tsx inside the Agate repository', file: REPO_AGENT },
    );
    installedBin = join(project, 'node_modules/@agate/cli/bin/agate.js');
  });

  const runLayouts = async (node: string) => {
    const outcomes = await inTurn(layouts, 3, (layout) =>
      runAgate(node, [installedBin, 'run', layout.file, '--scripted', script, '--plain'], {
        cwd: project,
        scratch: root,
      }),
    );
    outcomes.forEach((outcome, i) => {
      expectLayoutRan(outcome, layouts[i] as AgentLayout);
      // The installed core, never the repository's sources (for the agent inside it too).
      expect(coreCopies(outcome)[0]).toMatch(/\/node_modules\/.*@agate\/core\/dist\/index\.js$/);
    });
  };

  it('runs every layout of agent file, on one copy of @agate/core', async () => {
    await runLayouts(process.execPath);
  }, 120_000);

  it("the repository's CLI runs the installed project's agent on the repository's core", async () => {
    const agent = join(project, 'twice.tsx');
    writeLayoutAgent(agent);
    const outcome = await runAgate(
      process.execPath,
      [REPO_BIN, 'run', agent, '--scripted', script, '--plain'],
      { cwd: project, scratch: root },
    );
    expectLayoutRan(outcome, { name: "the installed project's agent", file: agent });
    expect(coreCopies(outcome)[0]).toMatch(/\/packages\/core\/src\/index\.ts$/);
  }, 60_000);

  it('with OTEL_TRACES_EXPORTER set but no @opentelemetry/sdk-node installed, says how to install it and runs untraced', async () => {
    const layout = layouts[0] as AgentLayout;
    const outcome = await runAgate(
      process.execPath,
      [installedBin, 'run', layout.file, '--scripted', script, '--plain'],
      { cwd: project, scratch: root, env: { OTEL_TRACES_EXPORTER: 'console' } },
    );
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stderr).toBe(
      'agate: warning: OTEL_TRACES_EXPORTER is set, but @opentelemetry/sdk-node is not installed beside @agate/cli, so this run is not traced. Install it in your project: npm install @opentelemetry/sdk-node\n',
    );
    expect(outcome.stdout).toMatch(/status: completed/);
    expect(outcome.stdout).not.toContain('invoke_agent');
  }, 60_000);

  const { floor } = enginesFloor(
    JSON.parse(readFileSync(join(PACKAGES_DIR, 'cli/package.json'), 'utf8')).engines.node,
  );
  let floorNode: string | undefined;
  it.skipIf(
    !requireSystem({
      tests: `the installed CLI on Node ${floor}`,
      needs: `Node ${floor} from the npm registry (npx -y -p node@${floor})`,
      enable: 'let npx reach the npm registry',
      probe: () => {
        floorNode = nodeBinary(floor);
        return floorNode !== undefined;
      },
    }),
  )(
    `runs every layout of agent file on Node ${floor}, the oldest the engines allow`,
    async () => {
      await runLayouts(floorNode as string);
    },
    240_000,
  );
});
