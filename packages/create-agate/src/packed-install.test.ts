import { type SpawnSyncOptions, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { megabytes } from '../../../release/node-modules.js';
import { RUNTIME_LIMITS } from '../../../release/packed-project.js';
import {
  cleanEnv,
  type PackageManifest,
  publishedPackages,
  ROOT,
} from '../../../release/workspace.js';

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

const run = (command: string, args: string[], options: Omit<SpawnSyncOptions, 'encoding'> = {}) =>
  spawnSync(command, args, { env: cleanEnv(), timeout: 90_000, ...options, encoding: 'utf8' });

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
    for (const name of ['@agate/testing', '@agate/postgres', '@agate/dbos', 'create-agate']) {
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
    expect(tsconfig.compilerOptions.jsx).toBe('react-jsx');
    for (const f of ['agent.tsx', 'agent.test.tsx', 'script.json', 'README.md']) {
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

  it('depends on core and cli (and their peers), installed from the tarballs; for tests, only its test runner', () => {
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
    const tarball = (name: string) => {
      const found = packed.find((p) => p.name === name);
      return found && `file:${join(packedDir, found.file)}`;
    };
    expect(pkg.dependencies).toEqual({
      '@agate/core': tarball('@agate/core'),
      '@agate/cli': tarball('@agate/cli'),
      ai: expect.any(String),
      react: expect.any(String),
      zod: expect.any(String),
    });
    expect(pkg.devDependencies).toEqual({
      '@agate/testing': tarball('@agate/testing'),
      vitest: expect.any(String),
    });
  });
});

describe('a project that runs agents: core and cli (and ai, react, zod)', () => {
  const { runtime, full } = installed;
  const names = runtime.sizes.map((p) => p.name.replace(/@[^@]*$/, ''));

  it(`holds at most ${RUNTIME_LIMITS.packages} packages and ${megabytes(RUNTIME_LIMITS.bytes)}`, () => {
    const biggest = runtime.sizes
      .slice(0, 8)
      .map((p) => `${p.name} ${megabytes(p.bytes)}`)
      .join(', ');
    const summary = `${runtime.packages} packages, ${megabytes(runtime.bytes)} (biggest: ${biggest})`;
    expect(runtime.packages, summary).toBeLessThanOrEqual(RUNTIME_LIMITS.packages);
    expect(runtime.bytes, summary).toBeLessThanOrEqual(RUNTIME_LIMITS.bytes);
  });

  it('holds no database driver, project writer or compiler of TypeScript types', () => {
    for (const name of ['@agate/postgres', 'pg', '@agate/dbos', 'create-agate', 'typescript']) {
      expect(names, name).not.toContain(name);
    }
    expect(names).toEqual(expect.arrayContaining(['@agate/core', '@agate/cli']));
  });

  it('the starter adds its test runner to it, and nothing else', () => {
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
    expect(Object.keys(pkg.devDependencies).sort()).toEqual(['@agate/testing', 'vitest']);
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

describe('the project, installed from the tarballs', () => {
  it('npm test passes', () => {
    const test = run('npm', ['test'], { cwd: project });
    expect(test.status, `${test.stdout}\n${test.stderr}`).toBe(0);
    expect(test.stdout).toMatch(/2 passed/);
  }, 90_000);

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

  it('an agent file in a folder of its own (no package.json, a tsconfig with classic JSX) runs on the installed CLI', () => {
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(
      join(elsewhere, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { jsx: 'react' }, include: ['nothing/**'] }),
    );
    writeFileSync(
      join(elsewhere, 'agent.tsx'),
      `import { System, Timeline, User } from '@agate/core';
export default function Hello() {
  return (<><System>Be brief.</System><User>Hi</User><Timeline /></>);
}
`,
    );
    writeFileSync(join(elsewhere, 'script.json'), JSON.stringify(['Hello there.']));
    const agate = run(
      join(project, 'node_modules/.bin/agate'),
      ['run', 'agent.tsx', '--scripted', 'script.json', '--plain'],
      { cwd: elsewhere },
    );
    expect(agate.status, `${agate.stdout}\n${agate.stderr}`).toBe(0);
    expect(agate.stdout).toContain('Hello there.');
    expect(agate.stdout).toMatch(/status: completed/);
  }, 90_000);
  it('an agent file a package ships inside node_modules, or one in a dot-folder (TypeScript with JSX), runs on the installed CLI', () => {
    // A package of agents, installed: its .tsx sources under the project's node_modules.
    const shipped = join(project, 'node_modules/shipped-agents');
    mkdirSync(shipped, { recursive: true });
    writeFileSync(
      join(shipped, 'package.json'),
      JSON.stringify({ name: 'shipped-agents', version: '1.0.0', type: 'module' }),
    );
    writeFileSync(
      join(shipped, 'agent.tsx'),
      `import { System, Timeline, User } from '@agate/core';
export default function Shipped() {
  return (<><System>Be brief.</System><User>Hi</User><Timeline /></>);
}
`,
    );
    writeFileSync(join(project, 'shipped-script.json'), JSON.stringify(['Shipped hello.']));
    const agate = run(
      join(project, 'node_modules/.bin/agate'),
      [
        'run',
        'node_modules/shipped-agents/agent.tsx',
        '--scripted',
        'shipped-script.json',
        '--plain',
      ],
      { cwd: project },
    );
    expect(agate.status, `${agate.stdout}\n${agate.stderr}`).toBe(0);
    expect(agate.stdout).toContain('Shipped hello.');
    expect(agate.stdout).toMatch(/status: completed/);
    // A folder whose name starts with a dot is skipped by tsconfig wildcards just the same.
    const dotted = join(project, '.agents');
    mkdirSync(dotted);
    writeFileSync(join(dotted, 'agent.tsx'), readFileSync(join(shipped, 'agent.tsx'), 'utf8'));
    const fromDot = run(
      join(project, 'node_modules/.bin/agate'),
      ['run', '.agents/agent.tsx', '--scripted', 'shipped-script.json', '--plain'],
      { cwd: project },
    );
    expect(fromDot.status, `${fromDot.stdout}\n${fromDot.stderr}`).toBe(0);
    expect(fromDot.stdout).toMatch(/status: completed/);
  }, 90_000);
});
