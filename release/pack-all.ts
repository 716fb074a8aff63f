import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  output,
  type PublishedPackage,
  publishedPackages,
  ROOT,
  step,
  tarballName,
} from './workspace.js';

/** One packed package, as `packed/manifest.json` lists it. */
export interface PackedPackage {
  name: string;
  version: string;
  /** The tarball's file name in the folder. */
  file: string;
  /** Bytes of the tarball. */
  size: number;
  /** Bytes of the files it holds. */
  unpackedSize: number;
  /** Files it holds (package.json included). */
  entryCount: number;
  /** Each file, with its size: what publint and the docs' facts read. */
  files: { path: string; size: number }[];
}

export const MANIFEST = 'manifest.json';

export interface PackAllOptions {
  /** Where the tarballs go (created; old tarballs of these packages replaced). */
  out: string;
  /**
   * Leave the fresh `dist/` folders in place (`pnpm release` publishes from them). By default
   * they are removed after packing: with a `dist/`, the repository's `bin/agate.js` and
   * `create-agate` launchers run the built code instead of the sources, and the tests that
   * start them would test a stale build.
   */
  keepDist?: boolean;
}

/**
 * Builds every published package from clean and packs each with `pnpm pack` (which writes the
 * `workspace:` ranges as versions), into one folder, with `manifest.json` describing the
 * tarballs. Generic over the packages: whatever `pnpm build` and each package's `files` and
 * `exports` say is what gets packed.
 */
export function packAll({ out, keepDist = false }: PackAllOptions): PackedPackage[] {
  const packages = publishedPackages();
  const folder = resolve(out);
  mkdirSync(folder, { recursive: true });
  // From clean: a file whose source was deleted must not linger in dist/ and get packed.
  removeDist(packages);
  try {
    step('pnpm', ['-s', 'build']);
    for (const pkg of packages) {
      const file = join(folder, tarballName(pkg.name, pkg.version));
      rmSync(file, { force: true });
      output('pnpm', ['pack', '--pack-destination', folder], pkg.dir);
      if (!statSync(file, { throwIfNoEntry: false })?.isFile()) {
        throw new Error(`pnpm pack of ${pkg.name} did not write ${file}`);
      }
    }
  } finally {
    if (!keepDist) removeDist(packages);
  }
  const packed = describeTarballs(
    folder,
    packages.map((pkg) => tarballName(pkg.name, pkg.version)),
  );
  writeFileSync(join(folder, MANIFEST), `${JSON.stringify(packed, null, 2)}\n`);
  return packed;
}

/**
 * The tarballs in `given` (a folder `pnpm pack:all` wrote, read from its manifest), or, without
 * one, every package built and packed into `scratch/packed`.
 */
export function packedIn(
  given: string | undefined,
  scratch: string,
): { dir: string; packed: PackedPackage[] } {
  if (given === undefined) {
    const dir = join(scratch, 'packed');
    return { dir, packed: packAll({ out: dir }) };
  }
  const dir = resolve(given);
  return {
    dir,
    packed: JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')) as PackedPackage[],
  };
}

/** Removes the published packages' `dist/` folders. */
export function removeDist(packages: PublishedPackage[] = publishedPackages()): void {
  for (const pkg of packages) rmSync(join(pkg.dir, 'dist'), { recursive: true, force: true });
}

/** What npm reads from each tarball (`npm pack <tarball> --dry-run --json`: sizes and files), in one call. */
export function describeTarballs(folder: string, files: string[]): PackedPackage[] {
  const described = JSON.parse(
    output('npm', ['pack', ...files.map((f) => `./${f}`), '--dry-run', '--json'], folder),
  ) as {
    name: string;
    version: string;
    size: number;
    unpackedSize: number;
    entryCount: number;
    files: { path: string; size: number }[];
  }[];
  return described.map((d, i) => ({
    name: d.name,
    version: d.version,
    file: files[i] ?? tarballName(d.name, d.version),
    size: d.size,
    unpackedSize: d.unpackedSize,
    entryCount: d.entryCount,
    files: d.files.map(({ path, size }) => ({ path, size })),
  }));
}

/** `pnpm pack:all [--out DIR] [--keep-dist]`. */
function main(): void {
  const { values } = parseArgs({
    options: {
      out: { type: 'string', default: join(ROOT, 'packed') },
      'keep-dist': { type: 'boolean', default: false },
    },
  });
  const out = resolve(values.out);
  const packed = packAll({ out, keepDist: values['keep-dist'] });
  const shown = relative(process.cwd(), out) || '.';
  process.stdout.write(
    `\nPacked ${packed.length} packages into ${shown}/:\n` +
      packed
        .map((p) => `  ${p.file}  ${(p.size / 1024).toFixed(0)} KiB, ${p.entryCount} files`)
        .join('\n') +
      `\n\nStart a project that installs them:\n  pnpm -s create-agate ../my-agent --from ${shown}\n`,
  );
  const stray = readdirSync(out).filter(
    (f) => f.endsWith('.tgz') && !packed.some((p) => p.file === f),
  );
  if (stray.length > 0) {
    process.stdout.write(`(also in ${shown}/, from an earlier version: ${stray.join(', ')})\n`);
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main();
}
