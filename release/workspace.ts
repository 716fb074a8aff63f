import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** A package this repository publishes: a folder under packages/ whose package.json is not private. */
export interface PublishedPackage {
  /** npm name, e.g. `@agate/core`. */
  name: string;
  version: string;
  /** Absolute folder. */
  dir: string;
  /** The package.json as written in the repository (`workspace:` ranges and all). */
  manifest: PackageManifest;
}

/** The package.json fields the release tooling reads. */
export interface PackageManifest {
  name: string;
  version: string;
  private?: boolean;
  bin?: string | Record<string, string>;
  exports?: unknown;
  files?: string[];
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  publishConfig?: Record<string, unknown>;
  repository?: string | { type?: string; url?: string; directory?: string };
}

/**
 * The files below `dir`, as absolute paths, sorted; `node_modules` folders and symbolic links
 * are not entered. Not `readdirSync(dir, { recursive: true })`: that follows symbolic links to
 * folders, and pnpm's `node_modules` are made of them, so under `docs/` or `examples/` it walked
 * the whole store (68,000 and 445,000 entries, seconds each).
 */
export function filesBelow(dir: string, keep: (path: string) => boolean = () => true): string[] {
  const files: string[] = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory() && entry.name !== 'node_modules') walk(path);
      else if (entry.isFile() && keep(path)) files.push(path);
    }
  };
  walk(dir);
  return files.sort();
}

/** Every published package, in folder order. Nothing is listed by hand: a new package is picked up. */
export function publishedPackages(): PublishedPackage[] {
  const packagesDir = join(ROOT, 'packages');
  return readdirSync(packagesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const dir = join(packagesDir, entry.name);
      let manifest: PackageManifest;
      try {
        manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageManifest;
      } catch {
        return [];
      }
      return manifest.private === true
        ? []
        : [{ name: manifest.name, version: manifest.version, dir, manifest }];
    });
}

/** The file name `npm pack` and `pnpm pack` give a package's tarball: `@agate/core` → `agate-core-0.1.0.tgz`. */
export function tarballName(name: string, version: string): string {
  return `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
}

/**
 * The environment for a child process that is not part of this one's npm/pnpm/vitest run: no
 * `npm_*` configuration inherited from a `pnpm` script (it would point npm at pnpm's settings),
 * no VITEST_* or NODE_OPTIONS.
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(VITEST|NODE_OPTIONS|npm_|PNPM_|TEST$|NODE_ENV$)/i.test(key)) continue;
    env[key] = value;
  }
  return { ...env, CI: '1', NO_COLOR: '1', ...extra };
}

/** Runs a command to completion; its output goes to this process's (a step of the release, shown as it runs). */
export function step(
  command: string,
  args: string[],
  cwd = ROOT,
  env: Record<string, string> = {},
): void {
  const result = spawnSync(command, args, { cwd, stdio: 'inherit', env: cleanEnv(env) });
  if (result.error !== undefined) throw result.error;
  if (result.status !== 0) {
    throw new Error(
      `\`${command} ${args.join(' ')}\` failed (exit ${result.status ?? result.signal})`,
    );
  }
}

/** Runs a command and returns its standard output; its standard error passes through. */
export function output(command: string, args: string[], cwd = ROOT): string {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    env: cleanEnv(),
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error !== undefined) throw result.error;
  if (result.status !== 0) {
    throw new Error(
      `\`${command} ${args.join(' ')}\` failed (exit ${result.status ?? result.signal})`,
    );
  }
  return result.stdout;
}
