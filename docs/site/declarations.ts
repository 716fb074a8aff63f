import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type PublishedPackage, publishedPackages, ROOT } from '../../release/workspace.js';

/** Where each package's declarations are laid out for the reference (gitignored). */
export const DECLARATIONS_FOLDER = '.api-docs';

interface BuildConfig {
  compilerOptions?: { stripInternal?: boolean };
  exclude?: string[];
}

/**
 * Emits the `.d.ts` files of every published package in one TypeScript program (the packages'
 * own build configs, one program each, would need the packages built in dependency order:
 * minutes on a busy machine) and lays each package out as its tarball does:
 * `packages/<name>/.api-docs/{package.json,dist/…}`. The `.d.ts` files are the ones
 * `pnpm build` writes — same sources, same exclusions, same `stripInternal` — so the
 * reference documents the declarations the API reports check.
 */
export function emitDeclarations(packages: PublishedPackage[] = publishedPackages()): string[] {
  const work = join(ROOT, 'node_modules/.cache/agate/docs-declarations');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const configs = packages.map(
    (pkg) => JSON.parse(readFileSync(join(pkg.dir, 'tsconfig.build.json'), 'utf8')) as BuildConfig,
  );
  const rel = (path: string) => relative(work, path);
  const tsconfig = {
    extends: rel(join(ROOT, 'tsconfig.base.json')),
    compilerOptions: {
      noEmit: false,
      declaration: true,
      emitDeclarationOnly: true,
      sourceMap: false,
      declarationMap: false,
      rootDir: rel(join(ROOT, 'packages')),
      outDir: 'out',
      // Only @agate/core's build strips `@internal`; the other packages mark nothing internal.
      stripInternal: configs.some((c) => c.compilerOptions?.stripInternal === true),
      // Workspace imports resolve to sources, so one program covers every package.
      customConditions: ['@agate/source'],
    },
    include: packages.map((pkg) => rel(join(pkg.dir, 'src'))),
    exclude: packages.flatMap((pkg, i) =>
      (configs[i]?.exclude ?? []).map((pattern) => rel(join(pkg.dir, pattern))),
    ),
  };
  writeFileSync(join(work, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  // Emitted, not checked: `pnpm typecheck` checks these sources (as @agate/core's build does).
  const result = spawnSync(
    process.execPath,
    [tsc, '-p', join(work, 'tsconfig.json'), '--noCheck'],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) {
    throw new Error(
      `tsc could not emit the packages' declarations:\n${result.stdout}${result.stderr}`,
    );
  }
  return packages.map((pkg) => {
    const folder = join(pkg.dir, DECLARATIONS_FOLDER);
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(folder, { recursive: true });
    cpSync(
      join(work, 'out', relative(join(ROOT, 'packages'), pkg.dir), 'src'),
      join(folder, 'dist'),
      {
        recursive: true,
      },
    );
    cpSync(join(pkg.dir, 'package.json'), join(folder, 'package.json'));
    return folder;
  });
}
