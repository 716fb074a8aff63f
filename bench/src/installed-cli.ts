import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import {
  cleanEnv,
  type Folder,
  PUBLISHED,
  pack,
  stagePackage,
} from '../../packages/create-agate/src/__fixtures__/stage-packages.js';
import { bundleOptions } from '../../release/bundle-entries.js';
import { REPO_ROOT } from './machine.js';

/** The demo as a user's project holds it, with the packed packages installed. */
export interface InstalledDemo {
  /** The project directory: `src/demo.tsx` and the rest of the demo, `kit/`, `node_modules`. */
  dir: string;
  /** `node_modules/.bin/agate` of the project: what `npx agate` runs. */
  bin: string;
  remove(): void;
}

const SKIP = /(\.test\.tsx?$|__fixtures__|__snapshots__)/;

/**
 * Packs the CLI and the packages it depends on as the packed-install test does (`dist/`
 * JavaScript transpiled file by file, as `tsc` builds it, and core's bundled as its build does;
 * no sources), installs the tarballs
 * with pnpm in a temporary project outside the repository, and copies the demo there
 * (examples/file-agent's sources, and the private example kit it imports as a linked folder).
 * Takes seconds to a minute: done once per bench run.
 */
export function installDemo(): InstalledDemo {
  const root = mkdtempSync(join(tmpdir(), 'agate-bench-installed-'));
  try {
    // What the demo installs: the CLI and what it depends on (not @agate/dbos, an optional peer).
    const tarballs: Partial<Record<Folder, string>> = {};
    for (const folder of ['core', 'testing', 'postgres', 'create-agate', 'cli'] as const) {
      const staged = stagePackage(folder, join(root, 'stage'));
      if (folder === 'core') bundleCore(staged);
      tarballs[folder] = pack(staged, join(root, 'tarballs'));
    }
    const overrides: Record<string, string> = {};
    for (const [folder, tarball] of Object.entries(tarballs)) {
      overrides[PUBLISHED[folder as Folder]] = `file:${tarball}`;
    }
    /** A package.json's dependencies, `workspace:` ones pointing at the tarballs or folders. */
    const dependenciesOf = (pkgFile: string, folders: Record<string, string>) => {
      const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as {
        dependencies: Record<string, string>;
      };
      return Object.fromEntries(
        Object.entries(pkg.dependencies).map(([name, range]) => {
          if (!range.startsWith('workspace:')) return [name, range];
          const local = overrides[name] ?? folders[name];
          if (local === undefined) throw new Error(`${pkgFile}: no local copy of ${name}`);
          return [name, local];
        }),
      );
    };

    const dir = join(root, 'demo');
    copySources(join(REPO_ROOT, 'examples', 'file-agent', 'src'), join(dir, 'src'));
    // The example kit (private, TypeScript sources) inside the project, linked: its .tsx files
    // are then the project's own, compiled with the CLI's JSX settings (not as files of a
    // package under node_modules), and its imports resolve from the project's node_modules.
    const kit = join(dir, 'kit');
    copySources(join(REPO_ROOT, 'examples', 'kit', 'src'), join(kit, 'src'));
    const kitPkgFile = join(REPO_ROOT, 'examples', 'kit', 'package.json');
    const { devDependencies: _, ...kitPkg } = JSON.parse(readFileSync(kitPkgFile, 'utf8'));
    kitPkg.dependencies = dependenciesOf(kitPkgFile, {});
    writeFileSync(join(kit, 'package.json'), JSON.stringify(kitPkg, null, 2));
    const dependencies = dependenciesOf(join(REPO_ROOT, 'examples', 'file-agent', 'package.json'), {
      '@agate/example-kit': 'link:./kit',
    });
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify(
        {
          name: 'agate-bench-demo',
          private: true,
          type: 'module',
          dependencies,
          pnpm: { overrides },
        },
        null,
        2,
      ),
    );
    const install = (mode: string) =>
      spawnSync('pnpm', ['install', mode, '--config.confirmModulesPurge=false'], {
        cwd: dir,
        encoding: 'utf8',
        env: cleanEnv(),
        timeout: 300_000,
      });
    // From the local store when it has everything, else fetching only what it lacks.
    let result = install('--offline');
    if (result.status !== 0) result = install('--prefer-offline');
    if (result.status !== 0) {
      throw new Error(`installing the packed packages failed:\n${result.stdout}\n${result.stderr}`);
    }
    return {
      dir,
      bin: join(dir, 'node_modules', '.bin', 'agate'),
      remove: () => rmSync(root, { recursive: true, force: true }),
    };
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Core's `dist/` as `pnpm build` makes it and users install it: one bundle per exports entry and
 * the chunks they share (release/bundle-entries.ts), not stagePackage's file-by-file transpile.
 * The two load very differently (12 files against ~290: about 1.4x against 1.9x `ai`'s import on
 * the same machine), and the import row is about what users run. The other packages are built
 * file by file by `tsc`, as staged.
 */
function bundleCore(staged: string): void {
  const dist = join(staged, 'dist');
  rmSync(dist, { recursive: true, force: true });
  buildSync({ ...bundleOptions(join(REPO_ROOT, 'packages', 'core'), dist), logLevel: 'error' });
}

function copySources(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  cpSync(from, to, { recursive: true, filter: (path) => !SKIP.test(path) });
}
