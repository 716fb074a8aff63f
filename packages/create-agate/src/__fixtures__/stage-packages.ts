import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const PACKAGES_DIR = fileURLToPath(new URL('../../../', import.meta.url));
/** Every published package, by folder, with its npm name. */
export const PUBLISHED = {
  core: '@agate/core',
  testing: '@agate/testing',
  postgres: '@agate/postgres',
  dbos: '@agate/dbos',
  cli: '@agate/cli',
  'create-agate': 'create-agate',
} as const;
export type Folder = keyof typeof PUBLISHED;

const SKIP = /(\.test\.tsx?$|__fixtures__|__snapshots__)/;

/**
 * A copy of a package as `pnpm build` leaves it for packing: package.json, README, LICENSE,
 * bin and `dist/`, with workspace ranges replaced by versions (what `pnpm pack` writes). The
 * JavaScript of `dist/` is transpiled file by file (no type check, no declarations): building
 * types takes a minute on CI, and installing and running needs only the JavaScript. The bench's
 * installed-CLI cold start uses it (bench/src/installed-cli.ts); the release's packed tests
 * pack the real build instead (release/pack-all.ts).
 */
export function stagePackage(folder: Folder, into: string): string {
  const source = join(PACKAGES_DIR, folder);
  const target = join(into, folder);
  mkdirSync(target, { recursive: true });
  const pkg = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  for (const field of ['dependencies', 'devDependencies', 'peerDependencies'] as const) {
    const deps = pkg[field] as Record<string, string> | undefined;
    if (deps === undefined) continue;
    for (const [name, range] of Object.entries(deps)) {
      if (range.startsWith('workspace:')) {
        const version = versionOf(name);
        deps[name] = range === 'workspace:^' ? `^${version}` : version;
      }
    }
  }
  writeFileSync(join(target, 'package.json'), JSON.stringify(pkg, null, 2));
  for (const file of ['README.md', 'LICENSE', 'bin']) {
    if (existsSync(join(source, file)))
      cpSync(join(source, file), join(target, file), { recursive: true });
  }
  transpileTree(join(source, 'src'), join(target, 'dist'));
  return target;
}

function versionOf(name: string): string {
  const folder = Object.entries(PUBLISHED).find(([, n]) => n === name)?.[0];
  if (folder === undefined) throw new Error(`${name} is not a published package`);
  const pkg = JSON.parse(readFileSync(join(PACKAGES_DIR, folder, 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

function transpileTree(src: string, out: string): void {
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (SKIP.test(path)) continue;
      if (entry.isDirectory()) {
        walk(path);
        continue;
      }
      if (!/\.tsx?$/.test(entry.name) || entry.name.endsWith('.d.ts')) continue;
      const { outputText } = ts.transpileModule(readFileSync(path, 'utf8'), {
        fileName: path,
        compilerOptions: {
          target: ts.ScriptTarget.ES2023,
          module: ts.ModuleKind.ESNext,
          jsx: ts.JsxEmit.ReactJSX,
          verbatimModuleSyntax: true,
        },
      });
      const target = join(out, relative(src, path)).replace(/\.tsx?$/, '.js');
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, outputText);
    }
  };
  walk(src);
}

/** `npm pack` of a staged package; returns the tarball's path. */
export function pack(staged: string, destination: string): string {
  mkdirSync(destination, { recursive: true });
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', destination], {
    cwd: staged,
    encoding: 'utf8',
    env: cleanEnv(),
  }).trim();
  return join(destination, name.split('\n').at(-1) ?? name);
}

/** The files a tarball holds, without the leading `package/`. */
export function tarballFiles(tarball: string): string[] {
  return execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.replace(/^package\//, ''));
}

/** The environment for a child process that is not part of this test run (no VITEST_*, no npm_*). */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(VITEST|NODE_OPTIONS|npm_|PNPM_|TEST$|NODE_ENV$)/i.test(key)) continue;
    env[key] = value;
  }
  return { ...env, CI: '1', NO_COLOR: '1', ...extra };
}
