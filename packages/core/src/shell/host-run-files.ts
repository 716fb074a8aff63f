import { type Dirent, lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { isWithin } from './policy.js';

/**
 * Files the host runs or reads as configuration later, outside the sandbox, so a command must
 * not write them even inside its writable folders: a `.git/hooks/pre-commit` runs at the
 * host's next commit, `.git/config` can name a hook folder, an editor or a pager, a shell rc
 * file runs at the next login, an editor's task folder runs on open, `.envrc` runs when direnv
 * enters the folder, `.pnpmfile.cjs` at the next `pnpm install`, `.yarnrc.yml` names the yarn
 * binary to run (`yarnPath`), `.npmrc` sets `node-options` and `script-shell`. The list is
 * sandbox-runtime's mandatory deny list (what Claude Code's commands run under), plus the rc
 * files zsh and bash read that it leaves out and the package managers' and direnv's files
 * (issue 48).
 */
export const HOST_RUN_FILES = [
  '.gitconfig',
  '.gitmodules',
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.ripgreprc',
  '.mcp.json',
  '.envrc',
  '.pnpmfile.cjs',
  '.yarnrc',
  '.yarnrc.yml',
  '.npmrc',
] as const;

export const HOST_RUN_DIRS = [
  '.vscode',
  '.idea',
  '.devcontainer',
  '.claude/commands',
  '.claude/agents',
] as const;

/** Folders below the top that are protected whole where they exist. */
const NESTED_DIRS = new Set(['.vscode', '.idea', '.devcontainer']);

interface GitDirEntry {
  name: string;
  kind: 'dir' | 'file';
  content: string;
  /**
   * Held by a placeholder when absent in every git directory found, nested ones too: git reads
   * them only under a setting (`extensions.worktreeConfig`, a sparse checkout) the host may turn
   * on later, so a file planted now would lie in wait.
   */
  always?: true;
}

/**
 * What must stand in a git directory: hooks run by git, config read by it (the per-worktree
 * `config.worktree` too: `core.fsmonitor` there runs at the host's next `git status`), the
 * redirect to another git directory, and `info/` (`attributes` picks filter and diff drivers,
 * `exclude` hides files from `git add`, `sparse-checkout` decides what is checked out).
 */
const GIT_DIR_ENTRIES: readonly GitDirEntry[] = [
  { name: 'hooks', kind: 'dir', content: '' },
  { name: 'config', kind: 'file', content: '' },
  // git refuses an empty commondir; "." names the git directory itself, as no file does.
  { name: 'commondir', kind: 'file', content: '.\n' },
  { name: 'config.worktree', kind: 'file', content: '', always: true },
  { name: 'info', kind: 'dir', content: '', always: true },
];

/**
 * What stands in a linked worktree's own git directory (`.git/worktrees/<name>`): its
 * `config.worktree`, its `info/sparse-checkout`, and its `commondir` and `gitdir`, which tie it
 * to the common directory whose hooks and config it uses and to its checkout (those two only
 * where they exist: git refuses them empty).
 */
const WORKTREE_ENTRIES: readonly GitDirEntry[] = [
  { name: 'config.worktree', kind: 'file', content: '', always: true },
  { name: 'info', kind: 'dir', content: '', always: true },
  { name: 'commondir', kind: 'file', content: '' },
  { name: 'gitdir', kind: 'file', content: '' },
];
/** Linked worktrees looked at per git directory, at most. */
export const WORKTREE_LIMIT = 200;

/** An absent path made (empty) before the command and bound read-only, so it cannot be created. */
export interface Placeholder {
  path: string;
  kind: 'dir' | 'file';
  content: string;
}

export interface HostRunPlan {
  /**
   * Folders bound writable onto themselves: a mount point cannot be renamed, removed or
   * replaced, so a git directory and the folders above it stay where the host's git finds them.
   */
  pins: string[];
  /** Existing files and folders bound read-only onto themselves. */
  readOnly: string[];
  /** Absent ones, made empty and bound read-only for the command's lifetime. */
  placeholders: Placeholder[];
}

/** How deep below a writable folder nested repositories and host-run files are looked for. */
export const SCAN_DEPTH = 3;
/** Folders looked into per writable folder, at most: the scan runs before every command. */
export const SCAN_LIMIT = 2_000;
const SKIPPED = new Set(['node_modules', '.git']);

type Kind = 'dir' | 'file' | 'symlink' | 'other' | 'absent';

function kindOf(path: string): Kind {
  try {
    const stat = lstatSync(path);
    if (stat.isDirectory()) return 'dir';
    if (stat.isFile()) return 'file';
    if (stat.isSymbolicLink()) return 'symlink';
    return 'other';
  } catch {
    return 'absent';
  }
}

class Plan {
  readonly pins = new Set<string>();
  readonly readOnly = new Set<string>();
  readonly placeholders = new Map<string, Placeholder>();
  constructor(private readonly writable: readonly string[]) {}

  /** The writable folder `path` lies in, if any. */
  root(path: string): string | undefined {
    return this.writable.find((w) => isWithin(path, w));
  }

  /**
   * Protects `path`: bound read-only if it exists; else its first absent component gets a
   * placeholder of kind `stand` (an empty file blocks a folder as well as a folder does, and is
   * quicker to make and remove).
   */
  protect(path: string, stand: 'dir' | 'file', content = '', createAbsent = true): void {
    const root = this.root(path);
    if (root === undefined) return;
    const found = kindOf(path);
    if (found !== 'absent') {
      // A link is bound where it points; see "What it does not cover" in docs/shell.md.
      this.readOnly.add(path);
      return;
    }
    if (!createAbsent) return;
    let first = path;
    for (let dir = dirname(path); dir !== root && isWithin(dir, root); dir = dirname(dir)) {
      const k = kindOf(dir);
      if (k === 'absent') first = dir;
      else if (k !== 'dir') {
        // A file (or link) in the way: nothing can be created below it while it stays.
        this.readOnly.add(dir);
        return;
      } else break;
    }
    this.placeholders.set(first, {
      path: first,
      kind: stand,
      content: first === path ? content : '',
    });
  }

  /** Pins `dir` and every folder between it and its writable folder. */
  pin(dir: string): void {
    const root = this.root(dir);
    if (root === undefined) return;
    for (let d = dir; d !== root && isWithin(d, root); d = dirname(d)) this.pins.add(d);
  }

  /**
   * A git directory: pinned, its hooks, config, per-worktree config, info and commondir
   * protected, its linked worktrees' and submodules' too.
   */
  gitDir(gitDir: string, worktree: string | undefined, createAbsent: boolean): void {
    if (this.root(gitDir) === undefined) return;
    this.pin(gitDir);
    this.entries(gitDir, GIT_DIR_ENTRIES, createAbsent);
    for (const linked of subfolders(join(gitDir, 'worktrees'), WORKTREE_LIMIT)) {
      // Pinned: renamed away, it could be replaced by one with a config.worktree of the command's.
      this.pin(linked);
      this.entries(linked, WORKTREE_ENTRIES, false);
    }
    const hooksPath = configuredHooksPath(join(gitDir, 'config'));
    if (hooksPath !== undefined && worktree !== undefined) {
      this.protect(resolve(worktree, hooksPath), 'dir', '', false);
    }
    for (const module of submoduleGitDirs(join(gitDir, 'modules'))) {
      this.gitDir(module, undefined, false);
    }
  }

  private entries(dir: string, entries: readonly GitDirEntry[], createAbsent: boolean): void {
    for (const entry of entries) {
      const make = createAbsent || entry.always === true;
      this.protect(join(dir, entry.name), entry.kind, entry.content, make);
    }
  }

  /** A `.git` entry of a working tree: a git directory, or a file pointing at one. */
  dotGit(path: string, createAbsent: boolean): void {
    const kind = kindOf(path);
    if (kind === 'dir') {
      this.gitDir(path, dirname(path), createAbsent);
    } else if (kind === 'absent') {
      if (createAbsent) this.protect(path, 'dir');
    } else if (kind === 'symlink' && isDirectory(path)) {
      // A linked git directory: protected where it really is.
      this.gitDir(realpathSync(path), dirname(path), false);
    } else {
      // A pointer (linked worktree, submodule checkout) or a link: fixed in place, and what it
      // names protected when it lies in a writable folder (with the common git directory a
      // linked worktree's commits run the hooks of).
      this.readOnly.add(path);
      const target = gitdirPointer(path);
      if (target === undefined) return;
      this.gitDir(target, dirname(path), false);
      const common = commonDir(target);
      if (common !== undefined) this.gitDir(common, undefined, false);
    }
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** `gitdir: <path>` of a `.git` file, resolved; undefined for anything git would not follow. */
function gitdirPointer(file: string): string | undefined {
  let text: string;
  try {
    if (!statSync(file).isFile()) return undefined;
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  if (!text.startsWith('gitdir: ')) return undefined;
  const target = text.slice('gitdir: '.length).replace(/[\r\n]+$/, '');
  return target === '' ? undefined : resolve(dirname(file), target);
}

function commonDir(gitDir: string): string | undefined {
  try {
    const text = readFileSync(join(gitDir, 'commondir'), 'utf8').replace(/[\r\n]+$/, '');
    return text === '' ? undefined : resolve(gitDir, text);
  } catch {
    return undefined;
  }
}

/** `core.hooksPath` of a git config file, if set (the last one wins, as in git). */
export function configuredHooksPath(configFile: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(configFile, 'utf8');
  } catch {
    return undefined;
  }
  let section = '';
  let value: string | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)(\s+"[^"]*")?\s*\]/.exec(line);
    if (header !== null) {
      section = header[2] === undefined ? (header[1] ?? '').toLowerCase() : '';
      continue;
    }
    const entry = /^hookspath\s*=\s*(.*)$/i.exec(line);
    if (section === 'core' && entry !== null) {
      value = (entry[1] ?? '').replace(/^"(.*)"$/, '$1').trim();
    }
  }
  return value === '' ? undefined : value;
}

/** The folders directly in `dir` (not links), at most `limit` of them. */
function subfolders(dir: string, limit: number): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .slice(0, limit)
      .map((e) => join(dir, e.name));
  } catch {
    return [];
  }
}

/** Git directories of submodules under `.git/modules` (a submodule's name may nest), bounded. */
function submoduleGitDirs(modules: string): string[] {
  const found: string[] = [];
  const pending: Array<[string, number]> = [[modules, 0]];
  let visited = 0;
  while (pending.length > 0 && visited < SCAN_LIMIT) {
    const [dir, depth] = pending.pop()!;
    visited++;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    if (dir !== modules && entries.some((e) => e.name === 'HEAD' || e.name === 'config')) {
      found.push(dir);
      pending.push([join(dir, 'modules'), depth + 1]);
      continue;
    }
    if (depth >= 4) continue;
    for (const e of entries) if (e.isDirectory()) pending.push([join(dir, e.name), depth + 1]);
  }
  return found;
}

/**
 * What to bind so the host-run files of `writable` folders stay as they are: at the top of
 * each, every name on the list, absent ones included (made empty for the command's lifetime,
 * as sandbox-runtime does, so `.git/hooks/pre-commit` cannot be created); below it, down to
 * `SCAN_DEPTH` folders and `SCAN_LIMIT` folders looked into, the ones that exist (nested
 * repositories, their submodules, editor folders).
 */
export function hostRunPlan(writable: readonly string[]): HostRunPlan {
  const plan = new Plan(writable);
  for (const root of writable) {
    if (kindOf(root) !== 'dir') continue;
    for (const name of HOST_RUN_FILES) plan.protect(join(root, name), 'file');
    for (const name of HOST_RUN_DIRS) plan.protect(join(root, ...name.split('/')), 'file');
    plan.dotGit(join(root, '.git'), true);
    scanNested(root, plan);
  }
  const byDepth = (a: string, b: string) => a.split(sep).length - b.split(sep).length;
  return {
    pins: [...plan.pins].sort(byDepth),
    readOnly: [...plan.readOnly].sort(byDepth),
    placeholders: [...plan.placeholders.values()].sort((a, b) => byDepth(a.path, b.path)),
  };
}

const FILE_NAMES = new Set<string>(HOST_RUN_FILES);

/** The `info/exclude` git reads for the working tree at `root` (a linked worktree's is in its common directory). */
function excludeFile(root: string): string | undefined {
  const dotGit = join(root, '.git');
  const kind = kindOf(dotGit);
  if (kind === 'dir') return join(dotGit, 'info', 'exclude');
  if (kind !== 'file') return undefined;
  const gitDir = gitdirPointer(dotGit);
  if (gitDir === undefined) return undefined;
  return join(commonDir(gitDir) ?? gitDir, 'info', 'exclude');
}

/**
 * A repository's `.git/info/exclude` with the placeholders at its top added, to show the
 * command instead of the file, so `git status` and `git add -A` pass over them (one per
 * writable folder that is a repository and has placeholders at its top).
 */
export function placeholderExcludes(
  writable: readonly string[],
  placeholders: readonly string[],
): Array<{ path: string; content: string }> {
  return writable.flatMap((root) => excludeFor(root, placeholders));
}

function excludeFor(
  root: string,
  placeholders: readonly string[],
): Array<{ path: string; content: string }> {
  const file = excludeFile(root);
  if (file === undefined) return [];
  const names = placeholders
    .filter((p) => dirname(p) === root && !p.endsWith(`${sep}.git`))
    .map((p) => `/${p.slice(root.length + 1)}`);
  if (names.length === 0 || kindOf(file) !== 'file') return [];
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const separator = content === '' || content.endsWith('\n') ? '' : '\n';
  return [
    {
      path: file,
      content: `${content}${separator}# <Shell> sandbox: placeholders for absent host-run files\n${names.join('\n')}\n`,
    },
  ];
}

function scanNested(root: string, plan: Plan): void {
  const pending: Array<[string, number]> = [[root, 0]];
  let visited = 0;
  while (pending.length > 0 && visited < SCAN_LIMIT) {
    const [dir, depth] = pending.shift()!;
    visited++;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    const top = dir === root;
    for (const e of entries) {
      const path = join(dir, e.name);
      if (!top) {
        if (e.name === '.git') plan.dotGit(path, false);
        else if (FILE_NAMES.has(e.name)) plan.readOnly.add(path);
        else if (NESTED_DIRS.has(e.name) && e.isDirectory()) {
          plan.readOnly.add(path);
        } else if (e.name === '.claude' && e.isDirectory()) {
          for (const sub of ['commands', 'agents'])
            plan.protect(join(path, sub), 'file', '', false);
        }
      }
      if (e.isDirectory() && !SKIPPED.has(e.name) && depth + 1 < SCAN_DEPTH) {
        pending.push([path, depth + 1]);
      }
    }
  }
}
