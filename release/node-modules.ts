import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** What an install put in a project's `node_modules`. */
export interface InstallFacts {
  /** Installed packages (each folder with a package.json, nested copies included). */
  packages: number;
  /** Bytes of every file, each hard link once (npm links esbuild's binary into two packages). */
  bytes: number;
  /**
   * What the tree takes on disk, as `du` counts it: the blocks allocated to every file, folder
   * and link, each hard link once. Many small files weigh more here than their bytes.
   */
  diskBytes: number;
  /** Each package (`name@version`) with its own bytes (its nested node_modules not included), largest first. */
  sizes: { name: string; bytes: number }[];
}

/**
 * Counts and weighs a `node_modules` tree the way npm lays it out (one folder per package,
 * `@scope/name` for scoped ones, nested `node_modules` for conflicting versions). Sizes are
 * the files' own sizes, as `du --apparent-size` counts them, not disk blocks.
 */
export function measureNodeModules(nodeModules: string): InstallFacts {
  const seen = new Set<string>();
  const sizes: { name: string; bytes: number }[] = [];

  /** Bytes under `path`, not descending into a `node_modules` folder of a package's own. */
  const weigh = (path: string, skipNested: boolean): number => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return 0;
    if (stat.isFile()) {
      const key = `${stat.dev}:${stat.ino}`;
      if (seen.has(key)) return 0;
      seen.add(key);
      return stat.size;
    }
    if (!stat.isDirectory()) return 0;
    let total = 0;
    for (const entry of readdirSync(path)) {
      if (skipNested && entry === 'node_modules') continue;
      total += weigh(join(path, entry), false);
    }
    return total;
  };

  const visitPackage = (dir: string) => {
    const manifest = join(dir, 'package.json');
    if (!existsSync(manifest)) return;
    const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as {
      name?: string;
      version?: string;
    };
    sizes.push({
      name: `${name ?? relative(nodeModules, dir)}@${version ?? '?'}`,
      bytes: weigh(dir, true),
    });
    const nested = join(dir, 'node_modules');
    if (existsSync(nested)) visitFolder(nested);
  };

  const visitFolder = (folder: string) => {
    for (const entry of readdirSync(folder)) {
      if (entry.startsWith('.')) continue;
      const path = join(folder, entry);
      if (entry.startsWith('@')) {
        for (const scoped of readdirSync(path)) visitPackage(join(path, scoped));
      } else visitPackage(path);
    }
  };

  visitFolder(nodeModules);
  sizes.sort((a, b) => b.bytes - a.bytes || a.name.localeCompare(b.name));
  // Whatever lies outside the packages (.bin links, npm's .package-lock.json) counts too.
  const bytes = sizes.reduce((sum, p) => sum + p.bytes, 0) + weighLeftovers(nodeModules, weigh);
  return { packages: sizes.length, bytes, diskBytes: diskUsage(nodeModules), sizes };
}

/** Blocks allocated under `root` (itself included), in bytes, each inode once: `du -s -B1`. */
export function diskUsage(root: string): number {
  const seen = new Set<string>();
  let total = 0;
  const visit = (path: string) => {
    const stat = lstatSync(path);
    const key = `${stat.dev}:${stat.ino}`;
    if (seen.has(key)) return;
    seen.add(key);
    total += stat.blocks * 512;
    if (stat.isDirectory()) for (const entry of readdirSync(path)) visit(join(path, entry));
  };
  visit(root);
  return total;
}

function weighLeftovers(nodeModules: string, weigh: (path: string, skip: boolean) => number) {
  return readdirSync(nodeModules)
    .filter((entry) => entry.startsWith('.'))
    .reduce((sum, entry) => sum + weigh(join(nodeModules, entry), false), 0);
}

/** `12.3 MB` (decimal megabytes, as npm and `du --si` print them). */
export function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
