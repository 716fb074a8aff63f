import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { projectFiles } from './templates.js';
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
}

export interface ScaffoldResult {
  /** The absolute directory written. */
  dir: string;
  name: string;
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
  await mkdir(target, { recursive: true });
  const present = (await readdir(target)).filter((entry) => !entry.startsWith('.'));
  if (present.length > 0) {
    throw new ScaffoldError(
      `${target} is not empty (it holds ${present.slice(0, 3).join(', ')}${present.length > 3 ? ', …' : ''}). ` +
        'Choose a new directory name, for example: npm create agate@latest my-agent',
    );
  }
  const name = options.name ?? packageName(basename(target));
  const files = projectFiles({ name, agateVersion: options.agateVersion ?? `^${VERSION}` });
  for (const [path, text] of Object.entries(files)) {
    // `wx`: never overwrite, even a dotfile that appeared meanwhile.
    await writeFile(join(target, path), text, { flag: 'wx' });
  }
  return { dir: target, name, files: Object.keys(files) };
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
    '  npm test\n' +
    '  npx agate run agent.tsx --scripted script.json\n'
  );
}
