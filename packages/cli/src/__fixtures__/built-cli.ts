/**
 * The `agate` command built once for the tests that start it as a child process (issue 46
 * item 4). Run from the repository, `bin/agate.js` loads the TypeScript sources through tsx at
 * every start, which was a third of the suite's CPU; these tests check what the command does,
 * not how the repository loads it (entry-points.test.ts and the packed tests check that), so
 * they run JavaScript built from the same sources.
 *
 * The build: every published package's `src/` transpiled by esbuild (no type checking, which
 * `pnpm typecheck` does; @agate/core bundled, see BUNDLED) into `node_modules/.cache/agate/built-cli/<hash>/<package>/dist/`,
 * beside a copy of its package.json and bin/, and a `node_modules/` of links: each workspace
 * package to its built copy, everything else to the package the workspace installed. Node
 * then resolves `@agate/core` to built JavaScript through the `import` condition, as in an
 * installed project. Keyed by a hash of the sources: the first test (or the global setup of
 * the run) builds it, every later start reuses it; a changed source builds a new one.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync, version as esbuildVersion, transformSync } from 'esbuild';
import { filesBelow } from '../../../../release/workspace.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const PACKAGES = join(ROOT, 'packages');
const CACHE = join(ROOT, 'node_modules', '.cache', 'agate', 'built-cli');

/** Set by the run's global setup (vitest.setup-built-cli.ts) to the built `bin/agate.js`. */
export const BUILT_CLI_ENV = 'AGATE_TEST_BUILT_CLI';

/**
 * `AGATE_TEST_SOURCE_CLI=1`: these tests start the repository's `bin/agate.js` (the sources
 * through tsx) instead, to debug a failure with the sources' stack traces, or to compare.
 */
export const SOURCE_CLI_ENV = 'AGATE_TEST_SOURCE_CLI';
const SOURCE_BIN = join(PACKAGES, 'cli', 'bin', 'agate.js');

/**
 * The packages bundled (one file per export, shared chunks) rather than transpiled file by
 * file: @agate/core is about 260 of the 500 modules a run loads, and resolving and loading
 * each is most of a child's start (a bundled core: 17% less CPU per `agate run`). Node still
 * resolves `@agate/core` and its subpaths through its package.json, so the CLI and an agent
 * file share one copy of it. Its dependencies stay outside (shared with the agent's own).
 */
const BUNDLED = new Set(['core']);

/** Part of the cache key: a change in how the build is laid out builds anew. */
const LAYOUT = `bundled: ${[...BUNDLED].join(',')}`;

/** Files of `src/` that are not part of the build (tsconfig.build.json leaves them out too). */
const NOT_BUILT = /(\.test\.|\.test-d\.|__fixtures__|__snapshots__|\.browser\.)/;

interface WorkspacePackage {
  name: string;
  dir: string;
  folder: string;
}

function workspacePackages(): WorkspacePackage[] {
  return readdirSync(PACKAGES, { withFileTypes: true }).flatMap((entry) => {
    const dir = join(PACKAGES, entry.name);
    if (!entry.isDirectory() || !existsSync(join(dir, 'package.json'))) return [];
    const { name, private: isPrivate } = JSON.parse(
      readFileSync(join(dir, 'package.json'), 'utf8'),
    ) as { name: string; private?: boolean };
    return isPrivate === true ? [] : [{ name, dir, folder: entry.name }];
  });
}

function filesUnder(dir: string): string[] {
  return existsSync(dir) ? filesBelow(dir) : [];
}

/** What the build depends on: every source, manifest and launcher, and the compiler's version. */
function sourceHash(packages: WorkspacePackage[]): string {
  const hash = createHash('sha256').update(`esbuild ${esbuildVersion}\n${LAYOUT}\n`);
  for (const pkg of packages) {
    for (const file of [
      join(pkg.dir, 'package.json'),
      ...filesUnder(join(pkg.dir, 'bin')),
      ...filesUnder(join(pkg.dir, 'src')).filter((f) => !NOT_BUILT.test(f)),
    ]) {
      hash
        .update(`${relative(ROOT, file)}\n`)
        .update(readFileSync(file))
        .update('\n');
    }
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The built `bin/agate.js`: the one the global setup built, or built now (a developer running
 * one file with a vitest that has no such setup), or the cached one for these sources.
 */
export function builtCliBin(): string {
  if (process.env[SOURCE_CLI_ENV] === '1') return SOURCE_BIN;
  const given = process.env[BUILT_CLI_ENV];
  if (given !== undefined && existsSync(given)) return given;
  return buildCli();
}

/** Builds (or finds) the CLI for the current sources; returns its `bin/agate.js`. */
export function buildCli(): string {
  const packages = workspacePackages();
  const out = join(CACHE, sourceHash(packages));
  const bin = join(out, 'cli', 'bin', 'agate.js');
  if (existsSync(join(out, 'complete'))) return bin;
  // Built under a name of its own, then renamed: test files building at once never see a
  // half-written folder, and the first rename wins.
  const temp = `${out}.${process.pid}.${Date.now()}`;
  try {
    for (const pkg of packages) buildPackage(pkg, join(temp, pkg.folder));
    for (const pkg of packages) linkDependencies(pkg, join(temp, pkg.folder), temp, packages);
    writeStudioPage(join(temp, 'cli', 'dist', 'studio'));
    writeFileSync(join(temp, 'complete'), '');
    try {
      renameSync(temp, out);
    } catch (error) {
      if (!existsSync(join(out, 'complete'))) throw error;
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  pruneOlderBuilds(out);
  return bin;
}

function buildPackage(pkg: WorkspacePackage, target: string): void {
  mkdirSync(target, { recursive: true });
  cpSync(join(pkg.dir, 'package.json'), join(target, 'package.json'));
  if (existsSync(join(pkg.dir, 'bin')))
    cpSync(join(pkg.dir, 'bin'), join(target, 'bin'), { recursive: true });
  if (BUNDLED.has(pkg.folder)) {
    bundlePackage(pkg, target);
    return;
  }
  const src = join(pkg.dir, 'src');
  for (const file of filesUnder(src).filter((f) => !NOT_BUILT.test(f))) {
    const rel = relative(src, file);
    const isTs = /\.tsx?$/.test(file) && !file.endsWith('.d.ts');
    const dest = join(target, 'dist', isTs ? rel.replace(/\.tsx?$/, '.js') : rel);
    mkdirSync(dirname(dest), { recursive: true });
    if (!isTs) {
      cpSync(file, dest);
      continue;
    }
    const { code } = transformSync(readFileSync(file, 'utf8'), {
      loader: file.endsWith('.tsx') ? 'tsx' : 'ts',
      format: 'esm',
      platform: 'node',
      target: 'node22',
      // tsconfig.base.json: `jsx: react-jsx`.
      jsx: 'automatic',
      sourcefile: file,
    });
    writeFileSync(dest, code);
  }
}

/**
 * Each export of the package (its `@agate/source` file) bundled to where its `import`
 * condition points, with esbuild's shared chunks between them; every bare import (the
 * package's dependencies, node builtins) left for Node to resolve.
 */
function bundlePackage(pkg: WorkspacePackage, target: string): void {
  const { exports } = JSON.parse(readFileSync(join(pkg.dir, 'package.json'), 'utf8')) as {
    exports: Record<string, Record<string, string>>;
  };
  const entryPoints: Record<string, string> = {};
  for (const [subpath, conditions] of Object.entries(exports)) {
    const source = conditions['@agate/source'];
    const built = conditions.import;
    if (source === undefined || built === undefined || !built.startsWith('./dist/')) {
      throw new Error(`${pkg.name}: export ${subpath} has no @agate/source or dist import`);
    }
    entryPoints[built.slice('./dist/'.length).replace(/\.js$/, '')] = join(pkg.dir, source);
  }
  buildSync({
    entryPoints,
    outdir: join(target, 'dist'),
    bundle: true,
    splitting: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: 'node22',
    jsx: 'automatic',
    // Class and function names as in the sources: errors print and tests match them.
    keepNames: true,
    logLevel: 'silent',
  });
}

/** `target/node_modules`: the package's installed dependencies, workspace ones pointing at their builds. */
function linkDependencies(
  pkg: WorkspacePackage,
  target: string,
  out: string,
  packages: WorkspacePackage[],
): void {
  const installed = join(pkg.dir, 'node_modules');
  if (!existsSync(installed)) return;
  const builtOf = new Map(packages.map((p) => [realpathSync(p.dir), join(out, p.folder)]));
  const link = (from: string, to: string) => {
    const real = realpathSync(from);
    mkdirSync(dirname(to), { recursive: true });
    const built = builtOf.get(real);
    // Relative to the build's own folder, which is renamed once complete.
    symlinkSync(built === undefined ? real : relative(dirname(to), built), to, 'dir');
  };
  for (const entry of readdirSync(installed)) {
    if (entry.startsWith('.')) continue;
    const path = join(installed, entry);
    if (
      entry.startsWith('@') &&
      lstatSync(path).isDirectory() &&
      !lstatSync(path).isSymbolicLink()
    ) {
      for (const scoped of readdirSync(path)) {
        link(join(path, scoped), join(target, 'node_modules', entry, scoped));
      }
    } else {
      link(path, join(target, 'node_modules', entry));
    }
  }
}

/** The studio's page, bundled as `pnpm build` does (write-page.ts), next to the built page module. */
function writeStudioPage(outDir: string): void {
  const script = join(PACKAGES, 'cli', 'src', 'studio', 'write-page.ts');
  const result = spawnSync(process.execPath, ['--import', 'tsx', script, outDir], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    throw new Error(`write-page.ts failed (${result.status ?? result.signal}):\n${result.stderr}`);
  }
}

/** Builds of older sources: each is a few MB, and no test reads them again. */
function pruneOlderBuilds(keep: string): void {
  for (const entry of readdirSync(CACHE)) {
    const path = join(CACHE, entry);
    if (path === keep) continue;
    // A folder being built right now (a name with a pid) is another process's.
    if (entry.includes('.')) continue;
    rmSync(path, { recursive: true, force: true });
  }
}
