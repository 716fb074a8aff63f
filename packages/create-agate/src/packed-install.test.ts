import { type SpawnSyncOptions, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanEnv,
  type Folder,
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
