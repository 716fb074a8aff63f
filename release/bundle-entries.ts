/**
 * Bundles a package's `dist/` per entry (issue 42: a fast start). Run from the package's folder
 * after `tsc --emitDeclarationOnly`: the `exports` map names each entry's source (the
 * `@agate/source` condition) and its file (`import`), so the map stays the one list of entries.
 * Node resolves and compiles one file per entry (and the chunks they share) instead of one per
 * source module: for @agate/core that was 227 files, most of its import time.
 *
 * - Dependencies and peer dependencies stay imports (`externalsOf`): one copy of React, the AI
 *   SDK and zod, whatever the app installs — but for BUNDLED_DEPENDENCIES.
 * - Code the entries share goes into shared chunks (`splitting`), so a class exported by two
 *   entries is one class (`instanceof` and `isInstance` agree across entries).
 * - Class names stay as written (error names and their `Symbol.for` markers come from
 *   `new.target.name`): esbuild renames a top-level name only where two modules collide, and the
 *   build fails if that ever hits a class (`renamedClasses`). Not `keepNames`, which wraps every
 *   named function and closure in a `__name` call each time it is created (hot paths make them
 *   per tick).
 * - A dynamic `import()` stays a separate chunk: optional parts (MCP) load when used.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BuildOptions, build } from 'esbuild';

/**
 * Dependencies bundled into `dist/` instead of imported: none today. unbash was (seventeen small
 * modules load faster as part of a chunk), until core took it on the first shell line read, not
 * at import (checks/shell-classifier/simple-commands.ts): a `createRequire` call esbuild leaves
 * alone, so it must stay an installed dependency. A package added here must hold no state or
 * classes shared with the app (one copy per bundle).
 */
export const BUNDLED_DEPENDENCIES: ReadonlySet<string> = new Set<string>();

interface Manifest {
  exports: Record<string, ExportTarget>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** Every package the manifest names but BUNDLED_DEPENDENCIES, with its subpaths, for `external`. */
export function externalsOf(manifest: Manifest): string[] {
  const names = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
    ...Object.keys(manifest.optionalDependencies ?? {}),
    ...Object.keys(manifest.devDependencies ?? {}),
  ]);
  return [...names]
    .filter((name) => !BUNDLED_DEPENDENCIES.has(name))
    .flatMap((name) => [name, `${name}/*`]);
}

type ExportTarget = string | { [condition: string]: ExportTarget };

/** Each entry's source and its output file, from the `exports` map. */
export function entriesOf(exportsMap: Record<string, ExportTarget>): { in: string; out: string }[] {
  return Object.entries(exportsMap).flatMap(([subpath, target]) => {
    if (typeof target !== 'object') return [];
    const source = target['@agate/source'];
    const file = target.import ?? target.default;
    if (typeof source !== 'string' || typeof file !== 'string') {
      throw new Error(
        `exports["${subpath}"] needs an "@agate/source" and an "import" path to be bundled.`,
      );
    }
    return [{ in: source, out: file.replace(/^\.\/dist\//, '').replace(/\.js$/, '') }];
  });
}

/**
 * esbuild's options for bundling the package in `packageDir` into `outdir` (its `dist/` when
 * built; the bench's installed project stages the same bundle elsewhere, so the import it times
 * is the one users install).
 */
export function bundleOptions(
  packageDir: string,
  outdir = 'dist',
): BuildOptions & {
  metafile: true;
} {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as Manifest;
  return {
    absWorkingDir: packageDir,
    entryPoints: entriesOf(manifest.exports),
    outdir,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    external: externalsOf(manifest),
    jsx: 'automatic',
    tsconfig: 'tsconfig.build.json',
    logLevel: 'warning',
    metafile: true,
  };
}

async function main(): Promise<void> {
  const result = await build(bundleOptions(process.cwd()));
  // Error classes take their name and marker from a literal (nameErrorClass), so esbuild may
  // rename a class binding (`_StaleSessionError`) without changing either.
  const files = Object.keys(result.metafile.outputs).length;
  process.stdout.write(`bundled ${files} files into dist/\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
