import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { megabytes } from '../../../release/node-modules.js';
import { RUNTIME_LIMITS } from '../../../release/packed-project.js';
import {
  cleanEnv,
  type PackageManifest,
  publishedPackages,
  ROOT,
} from '../../../release/workspace.js';
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
import { startOpenAICompatibleServer } from '../../testing/src/openai-compatible-server.js';
import { requireSystem } from '../../testing/src/system-requirements.js';
import { runInProject as run } from './__fixtures__/run-in-project.js';

/**
 * Issue 26, then 39: every package built and packed (release/packed.setup.ts, shared by the
 * packed tests), `create-agate --from` run on the tarballs in an empty directory (no workspace,
 * no links), the project installed with npm, passing its own tests and running its agent; an
 * agent file in a folder of its own runs on the installed CLI. A project that runs agents holds
 * @agate/core and @agate/cli and what they need, within the limits below, and the starter adds
 * only its test runner.
 */
const { dir: packedDir, packed, project: installed, scratch: root } = inject('packedRun');
const project = installed.dir;
const REPO_BIN = fileURLToPath(new URL('../../cli/bin/agate.js', import.meta.url));
const REPO_AGENT = fileURLToPath(
  new URL('../../cli/src/__fixtures__/twice-agent.tsx', import.meta.url),
);

const execFileAsync = promisify(execFile);

const agate = (args: string[], cwd = project) =>
  run(join(project, 'node_modules/.bin/agate'), args, { cwd });

const sourceManifest = (name: string) => {
  const pkg = publishedPackages().find((p) => p.name === name);
  if (pkg === undefined) throw new Error(`${name} is not a published package`);
  return pkg.manifest;
};

describe('the packed packages', () => {
  it('are every published package, one tarball each, at its version', () => {
    expect(packed.map((p) => `${p.name}@${p.version}`).sort()).toEqual(
      publishedPackages()
        .map((p) => `${p.name}@${p.version}`)
        .sort(),
    );
  });

  it('hold dist, README, LICENSE and package.json only (and the launchers their bin names)', () => {
    for (const pkg of packed) {
      const { bin } = sourceManifest(pkg.name);
      const bins = Object.values(typeof bin === 'string' ? { [pkg.name]: bin } : (bin ?? {})).map(
        (path) => path.replace(/^\.\//, ''),
      );
      const files = pkg.files.map((f) => f.path);
      const extra = files.filter(
        (f) =>
          !f.startsWith('dist/') &&
          !['package.json', 'README.md', 'LICENSE'].includes(f) &&
          !bins.includes(f),
      );
      expect(extra, pkg.name).toEqual([]);
      expect(
        files.some((f) => /\.test\.|__fixtures__|__snapshots__|^src\//.test(f)),
        pkg.name,
      ).toBe(false);
      expect(files, pkg.name).toEqual(expect.arrayContaining(['README.md', 'LICENSE', ...bins]));
    }
  });

  it('the CLI depends on none of the packages only one command needs: optional peers', () => {
    // The CLI as packed and installed, its workspace ranges written as versions.
    const cli = JSON.parse(
      readFileSync(join(project, 'node_modules/@agate/cli/package.json'), 'utf8'),
    ) as PackageManifest;
    expect(JSON.stringify(cli)).not.toContain('workspace:');
    for (const name of [
      '@agate/testing',
      '@agate/postgres',
      '@agate/dbos',
      'create-agate',
      'ink',
    ]) {
      expect(cli.dependencies?.[name], name).toBeUndefined();
      expect(cli.peerDependenciesMeta?.[name], name).toEqual({ optional: true });
    }
  });
});

describe('create-agate --from <tarballs>', () => {
  it('writes an ESM project with a tsconfig, an agent, a test and a README', () => {
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
    expect(pkg.type).toBe('module');
    const tsconfig = JSON.parse(readFileSync(join(project, 'tsconfig.json'), 'utf8'));
    expect(tsconfig.compilerOptions).toMatchObject({
      jsx: 'react-jsx',
      jsxImportSource: '@agate/core',
    });
    for (const f of ['agent.tsx', 'agent.test.tsx', 'script.json', 'README.md', '.env.example']) {
      expect(statSync(join(project, f)).isFile(), f).toBe(true);
    }
  });

  it("this clone's create-agate (the README's `pnpm -s create-agate <dir> --from packed`) writes the same project", () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const [command, ...args] = (scripts['create-agate'] ?? '').split(' ');
    const dir = join(root, 'from-the-clone');
    const made = run(command ?? 'node', [...args, dir, '--name', 'my-agent', '--from', packedDir], {
      cwd: ROOT,
    });
    expect(made.status, made.stderr).toBe(0);
    const read = (base: string, file: string) => readFileSync(join(base, file), 'utf8');
    for (const file of ['package.json', 'agent.tsx', 'agent.test.tsx', 'README.md']) {
      expect(read(dir, file), file).toBe(read(project, file));
    }
  });

  it('depends on core and cli (and their peers), installed from the tarballs by relative paths; for development, its test runner and TypeScript 5', () => {
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
    const tarball = (name: string) => {
      const found = packed.find((p) => p.name === name);
      return found && `file:${relative(project, join(packedDir, found.file))}`;
    };
    expect(pkg.dependencies).toEqual({
      '@agate/core': tarball('@agate/core'),
      '@agate/cli': tarball('@agate/cli'),
      // model.ts's two real routes, and tsx for run.tsx (already under @agate/cli).
      '@ai-sdk/openai': expect.stringMatching(/^\d+\.\d+\.\d+$/),
      '@ai-sdk/openai-compatible': expect.stringMatching(/^\d+\.\d+\.\d+$/),
      ai: expect.any(String),
      react: expect.any(String),
      tsx: expect.any(String),
      zod: expect.any(String),
    });
    expect(pkg.devDependencies).toEqual({
      '@agate/testing': tarball('@agate/testing'),
      '@types/node': expect.any(String),
      '@types/react': expect.any(String),
      typescript: expect.stringMatching(/^\^5\./),
      vitest: expect.any(String),
    });
  });
});

describe('a project that runs agents: core and cli (and ai, react, zod)', () => {
  const { runtime, full } = installed;
  const names = runtime.sizes.map((p) => p.name.replace(/@[^@]*$/, ''));

  it(`holds at most ${RUNTIME_LIMITS.packages} packages and ${megabytes(RUNTIME_LIMITS.bytes)}, in bytes and on disk`, () => {
    const biggest = runtime.sizes
      .slice(0, 8)
      .map((p) => `${p.name} ${megabytes(p.bytes)}`)
      .join(', ');
    const summary = `${runtime.packages} packages, ${megabytes(runtime.bytes)}, ${megabytes(runtime.diskBytes)} on disk (biggest: ${biggest})`;
    expect(runtime.packages, summary).toBeLessThanOrEqual(RUNTIME_LIMITS.packages);
    expect(runtime.bytes, summary).toBeLessThanOrEqual(RUNTIME_LIMITS.bytes);
    // `du -sh node_modules` counts blocks: thousands of small files weigh more there.
    expect(runtime.diskBytes, summary).toBeLessThanOrEqual(RUNTIME_LIMITS.bytes);
  });

  it('holds no database driver, project writer or compiler of TypeScript types', () => {
    for (const name of ['@agate/postgres', 'pg', '@agate/dbos', 'create-agate', 'typescript']) {
      expect(names, name).not.toContain(name);
    }
    expect(names).toEqual(expect.arrayContaining(['@agate/core', '@agate/cli']));
  });

  it('the starter adds its test runner and TypeScript to it, and nothing else', () => {
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
    expect(Object.keys(pkg.devDependencies).sort()).toEqual([
      '@agate/testing',
      '@types/node',
      '@types/react',
      'typescript',
      'vitest',
    ]);
    // Every package of the runtime install is in the starter's too: the test runner only adds.
    const fullNames = new Set(full.sizes.map((p) => p.name));
    expect(runtime.sizes.filter((p) => !fullNames.has(p.name))).toEqual([]);
    expect(full.packages).toBeGreaterThan(runtime.packages);
  });
});

describe('the installed CLI without its optional peers', () => {
  it('a postgres:// store: one line naming the package to install, exit 2', () => {
    const result = agate(['sessions', '--store', 'postgres://agate@127.0.0.1:9/agate']);
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toMatch(
      /^agate: Install @agate\/postgres to use a postgres:\/\/ store: npm install @agate\/postgres/,
    );
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('agate init: one line naming create-agate, exit 2', () => {
    const result = agate(['init', join(root, 'init-without-create-agate')]);
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/^agate: Install create-agate to use agate init/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe("@agate/cli's exports, imported by the installed project's own code", () => {
  /** An ES module run by node in the project (it resolves @agate/cli from its node_modules). */
  const node = (source: string) =>
    run(process.execPath, ['--input-type=module', '-e', source], { cwd: project });

  it('the main entry imports with no ink installed (the command bundles its own), and modelFromEnv chooses the model', () => {
    expect(existsSync(join(project, 'node_modules/ink'))).toBe(false);
    const result = node(`
      const cli = await import('@agate/cli');
      const chosen = cli.modelFromEnv({ AGATE_BASE_URL: 'http://127.0.0.1:9/v1', AGATE_MODEL: 'local-model' });
      console.log(JSON.stringify({ kind: chosen.kind, modelId: chosen.model.modelId, description: chosen.description }));
      console.log(cli.modelFromEnv({}) === undefined, typeof cli.main, typeof cli.reduceView, 'RunView' in cli);
      try { cli.modelFromEnv({ AGATE_BASE_URL: 'http://127.0.0.1:9/v1' }); } catch (error) { console.log(error.name); }
    `);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const [chosen, shape, refused] = result.stdout.trim().split('\n');
    expect(JSON.parse(chosen ?? '')).toMatchObject({
      kind: 'openai-compatible',
      modelId: 'local-model',
    });
    expect(JSON.parse(chosen ?? '').description).toContain('local-model');
    expect(shape).toBe('true function function false');
    expect(refused).toBe('ProviderConfigError');
  });

  it('@agate/cli/live-view (RunView) without ink installed: the missing package is named', () => {
    const result = node(`await import('@agate/cli/live-view');`);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/Cannot find package 'ink'/);
  });
});

describe('the project, installed from the tarballs', () => {
  it('npm test passes', () => {
    const test = run('npm', ['test'], { cwd: project });
    expect(test.status, `${test.stdout}\n${test.stderr}`).toBe(0);
    // agent.test.tsx's 2, model.test.tsx's 5 (both model routes against a loopback server).
    expect(test.stdout).toMatch(/7 passed/);
  }, 90_000);

  it('npm run start:sdk (run.tsx on model.ts) runs the agent on an OpenAI-compatible server, from .env', async () => {
    const server = await startOpenAICompatibleServer([
      { toolCalls: [{ toolName: 'write_answer', input: { answer: '391' } }] },
      { toolCalls: [{ toolName: 'check_answer', input: { answer: '391' } }] },
      '17 * 23 = 391.',
    ]);
    const env = join(project, '.env');
    writeFileSync(env, `AGATE_BASE_URL=${server.baseURL}\nAGATE_MODEL=loopback-model\n`);
    try {
      // Not spawnSync: the model server answers from this process's event loop.
      const { stdout } = await execFileAsync('npm', ['run', '-s', 'start:sdk'], {
        cwd: project,
        env: cleanEnv(),
        timeout: 90_000,
      });
      expect(stdout).toBe('17 * 23 = 391.\nstatus: completed\n');
      expect(server.requests.map((r) => r.model)).toEqual(Array(3).fill('loopback-model'));
    } finally {
      rmSync(env);
      await server.close();
    }
  }, 90_000);

  it("npm run typecheck: no error in the project's own files, and a DOM tag in an agent tree refused (jsxImportSource @agate/core through the packed exports map)", () => {
    // One tsc run shows both (a run is 7 s of CPU, on the packed phase's longest file): the
    // project's own files with a DOM tag beside them. tsc reports every error of the program,
    // so the DOM tag's being the only one means the project's own files pass.
    const bad = join(project, 'dom-tag.tsx');
    writeFileSync(bad, 'export const Agent = () => <div>hello</div>;\n');
    try {
      const check = run('npm', ['run', 'typecheck'], { cwd: project });
      const errors = check.stdout.split('\n').filter((line) => /error TS\d+/.test(line));
      // The opening tag and the closing one, nothing else.
      const refusal =
        /^dom-tag\.tsx\(1,\d+\): error TS2339: Property 'div' does not exist on type 'JSX\.IntrinsicElements'/;
      expect(errors, `${check.stdout}\n${check.stderr}`).toEqual([
        expect.stringMatching(refusal),
        expect.stringMatching(refusal),
      ]);
      expect(check.status).not.toBe(0);
    } finally {
      rmSync(bad);
    }
  }, 120_000);

  it('npm run demo (what the README runs inside npx -c): refused once, then completed', () => {
    const demo = run('npm', ['run', 'demo'], { cwd: project });
    expect(demo.status, `${demo.stdout}\n${demo.stderr}`).toBe(0);
    expect(demo.stdout).toMatch(/exit refused:[\s\S]*status: completed/);
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

  it.runIf(existsSync('/usr/bin/script'))(
    'npx agate run on a terminal draws the live view (the bundled Ink) to the end',
    () => {
      // util-linux's `script` gives the command a pseudo-terminal, as a person's shell does.
      const bin = join(project, 'node_modules/.bin/agate');
      const live = run(
        'script',
        ['-qec', `${bin} run agent.tsx --scripted script.json`, '/dev/null'],
        {
          cwd: project,
          env: { ...cleanEnv(), COLUMNS: '100', LINES: '40', TERM: 'xterm' },
        },
      );
      expect(live.status, `${live.stdout}\n${live.stderr}`).toBe(0);
      expect(live.stdout).toContain('exit refused');
      expect(live.stdout).toMatch(/completed · \d+ ticks/);
    },
    90_000,
  );
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
    JSON.parse(readFileSync(join(ROOT, 'packages/cli/package.json'), 'utf8')).engines.node,
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
