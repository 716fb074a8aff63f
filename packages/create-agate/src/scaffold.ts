import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { agatePackagesOf, projectFiles } from './project-files.js';
import {
  type AgatePackage,
  isTemplateName,
  TEMPLATE_NAMES,
  type TemplateName,
} from './templates.js';
import { VERSION } from './version.js';

/** Why a project could not be written, in terms of what to do instead. */
export class ScaffoldError extends Error {
  override readonly name = 'ScaffoldError';
}

export interface ScaffoldOptions {
  /** package.json `name`; default: the directory's name, made a valid package name. */
  name?: string;
  /** Version range of the `@agate/*` packages; default: `^` this package's version. */
  agateVersion?: string;
  /**
   * A folder of packed tarballs (`pnpm pack:all` in a clone of Agate writes `packed/`): the
   * project installs `@agate/core`, `@agate/cli` and `@agate/testing` (and the template's
   * others, such as `@agate/dbos`) of this version from there instead of the registry.
   */
  from?: string;
  /** Which project to write (`TEMPLATE_NAMES`); default `default`. */
  template?: string;
}

export interface ScaffoldResult {
  /** The absolute directory written. */
  dir: string;
  name: string;
  /** The template written. */
  template: TemplateName;
  /** Paths written, relative to `dir`. */
  files: string[];
}

/**
 * Writes a new Agate project into `dir` (created if missing). Refuses a directory that holds
 * anything but dotfiles such as `.git`, so nothing of yours is overwritten.
 */
export async function scaffold(
  dir: string,
  options: ScaffoldOptions = {},
): Promise<ScaffoldResult> {
  const target = resolve(dir);
  // Checked before anything is written: a wrong template or folder leaves no half-made project.
  const template = templateNamed(options.template ?? 'default');
  const packages = agatePackagesOf(template);
  const found = options.from === undefined ? undefined : await tarballsIn(options.from, packages);
  // Relative to the project, so it moves with the clone and names no home directory.
  const tarballs = found === undefined ? undefined : relativeTo(target, found);
  await mkdir(target, { recursive: true });
  const present = (await readdir(target)).filter((entry) => !entry.startsWith('.'));
  if (present.length > 0) {
    throw new ScaffoldError(
      `${target} is not empty (it holds ${present.slice(0, 3).join(', ')}${present.length > 3 ? ', …' : ''}). ` +
        'Choose a new directory name, for example: create-agate my-agent',
    );
  }
  const name = options.name ?? packageName(basename(target));
  const files = projectFiles({
    name,
    agateVersion: options.agateVersion ?? `^${VERSION}`,
    template,
    ...(tarballs === undefined ? {} : { tarballs }),
  });
  for (const [path, text] of Object.entries(files)) {
    // Templates' paths are this package's own constants; a folder (`workspace/test/`) is made.
    await mkdir(dirname(join(target, path)), { recursive: true });
    // `wx`: never overwrite, even a dotfile that appeared meanwhile.
    await writeFile(join(target, path), text, { flag: 'wx' });
  }
  return { dir: target, name, template, files: Object.keys(files) };
}

/** The template of that name, or a ScaffoldError listing the names there are. */
export function templateNamed(name: string): TemplateName {
  if (isTemplateName(name)) return name;
  throw new ScaffoldError(
    `there is no template ${JSON.stringify(name)}. The templates are: ${TEMPLATE_NAMES.join(', ')} (e.g. --template default).`,
  );
}

/** Each tarball's path as `file:` takes it from the project: `../agate/packed/x.tgz`. */
function relativeTo(
  project: string,
  tarballs: Partial<Record<AgatePackage, string>>,
): Partial<Record<AgatePackage, string>> {
  const out: Partial<Record<AgatePackage, string>> = {};
  for (const [pkg, file] of Object.entries(tarballs) as [AgatePackage, string][]) {
    const path = relative(project, file).split(sep).join('/');
    out[pkg] = path.startsWith('.') ? path : `./${path}`;
  }
  return out;
}

/** The file name `npm pack` and `pnpm pack` give a package's tarball: `@agate/core` → `agate-core-0.1.0.tgz`. */
export function tarballName(pkg: string, version: string): string {
  return `${pkg.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
}

/** The tarballs of this version in `dir`, by package; a ScaffoldError naming what is missing. */
async function tarballsIn(
  dir: string,
  packages: readonly AgatePackage[],
): Promise<Partial<Record<AgatePackage, string>>> {
  const folder = resolve(dir);
  const present = await readdir(folder).catch(() => undefined);
  const hint =
    `Make them in a clone of Agate with \`pnpm pack:all\` (it writes packed/), ` +
    'then pass that folder: create-agate my-agent --from packed';
  if (present === undefined) {
    throw new ScaffoldError(`--from ${dir}: there is no folder ${folder}. ${hint}`);
  }
  const tarballs: Partial<Record<AgatePackage, string>> = {};
  const missing: string[] = [];
  for (const pkg of packages) {
    const file = tarballName(pkg, VERSION);
    if (present.includes(file) && (await stat(join(folder, file))).isFile()) {
      tarballs[pkg] = join(folder, file);
    } else missing.push(file);
  }
  if (missing.length > 0) {
    throw new ScaffoldError(
      `--from ${dir}: ${folder} has no ${missing.join(', ')} (create-agate ${VERSION} installs the packages of its own version). ${hint}`,
    );
  }
  return tarballs;
}

/** A directory name as an npm package name: lower case, URL-safe characters only. */
export function packageName(dirName: string): string {
  const cleaned = dirName
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, '-')
    .replace(/^[._-]+|[-]+$/g, '');
  return cleaned === '' ? 'my-agent' : cleaned;
}

/** What to type next, printed after a project was written. */
export function nextSteps(result: ScaffoldResult, cwd = process.cwd()): string {
  const relative = result.dir.startsWith(`${cwd}/`) ? result.dir.slice(cwd.length + 1) : result.dir;
  const cd =
    result.dir === cwd ? '' : `  cd ${relative.includes(' ') ? `"${relative}"` : relative}\n`;
  return (
    `Created ${result.name} in ${result.dir}: ${result.files.join(', ')}.\n\nNext:\n${cd}` +
    '  npm install\n' +
    (result.template === 'durable'
      ? '  cp .env.example .env   # set DATABASE_URL (PostgreSQL)\n  npm run db:create\n'
      : '') +
    '  npm test\n' +
    (result.template === 'default'
      ? '  npx agate run agent.tsx --scripted script.json\n'
      : '  npm run demo\n') +
    (result.template === 'chat' ? '  npm start    # the page, on http://127.0.0.1:5173\n' : '')
  );
}
