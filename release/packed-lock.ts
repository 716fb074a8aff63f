import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import semver from 'semver';
import { ROOT } from './workspace.js';

/**
 * The lockfiles the packed-install tests install from (`npm ci`), kept in the repository so
 * the same commit installs the same versions next month, whatever the registry serves by then.
 * One per installed project (release/packed-project.ts): the starter `create-agate` writes,
 * the project holding its runtime dependencies alone, the `chat` template's project (its page
 * adds dependencies, so it cannot share the starter's install) and the `durable` template's.
 *
 * The `@agate/*` tarballs are `file:` entries whose paths depend on where the tarballs were
 * packed, and whose integrity changes with every build: the committed files hold a placeholder
 * for the folder and no integrity for them (npm then takes the tarball as it finds it, which is
 * what a test of this build wants). Everything from the registry keeps its version, `resolved`
 * URL and integrity.
 */

export const LOCK_DIR = join(ROOT, 'release', 'packed-lock');
export const LOCKED_PROJECTS = ['my-agent', 'runtime-only', 'durable-agent', 'chat-agent'] as const;
export type LockedProject = (typeof LOCKED_PROJECTS)[number];

/** Stands for the folder of tarballs in a committed lock. */
export const PACKED_DIR_PLACEHOLDER = '<packed>';

/** What regenerates the committed locks; every stale-lock message names it. */
export const RELOCK_COMMAND = 'pnpm packed:lock';

/** The parts of an npm lockfile (version 3) read here. */
export interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
  peer?: boolean;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [field: string]: unknown;
}

export interface Lockfile {
  name?: string;
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
  [field: string]: unknown;
}

export class StaleLockError extends Error {
  constructor(
    readonly project: string,
    readonly problems: readonly string[],
  ) {
    super(
      `release/packed-lock/${project}/package-lock.json is stale; run \`${RELOCK_COMMAND}\` and commit the result:\n` +
        problems.map((p) => `  - ${p}`).join('\n'),
    );
    this.name = 'StaleLockError';
  }
}

export function lockPath(project: LockedProject): string {
  return join(LOCK_DIR, project, 'package-lock.json');
}

/** The committed lock of `project`, or undefined when there is none yet. */
export function readCommittedLock(project: LockedProject): Lockfile | undefined {
  let text: string;
  try {
    text = readFileSync(lockPath(project), 'utf8');
  } catch {
    return undefined;
  }
  return parseLock(text, lockPath(project));
}

/** A lockfile's text, checked for the shape read here. */
export function parseLock(text: string, where: string): Lockfile {
  const lock = JSON.parse(text) as Partial<Lockfile>;
  if (
    typeof lock !== 'object' ||
    lock === null ||
    lock.lockfileVersion !== 3 ||
    typeof lock.packages !== 'object' ||
    lock.packages === null
  ) {
    throw new Error(`${where} is not an npm lockfile of version 3 (run \`${RELOCK_COMMAND}\`)`);
  }
  return lock as Lockfile;
}

/**
 * Turns the lock npm wrote in `projectDir` (tarballs in `packedDir`) into the committed form:
 * the tarballs' folder as a placeholder (absolute in the root's specs, as create-agate writes
 * them; relative to the project in `resolved`, as npm writes it), their integrity dropped.
 */
export function toTemplate(lock: Lockfile, packedDir: string, projectDir: string): Lockfile {
  const absolute = `file:${packedDir}/`;
  const relativePrefix = `file:${relative(projectDir, packedDir) || '.'}/`;
  const placeholder = `file:${PACKED_DIR_PLACEHOLDER}/`;
  return mapTarballs(lock, (spec) => {
    if (spec.startsWith(absolute)) return placeholder + spec.slice(absolute.length);
    if (spec.startsWith(relativePrefix)) return placeholder + spec.slice(relativePrefix.length);
    return spec;
  });
}

/** The committed form made installable in `projectDir`, with the tarballs in `packedDir`. */
export function fromTemplate(lock: Lockfile, packedDir: string, projectDir: string): Lockfile {
  const placeholder = `file:${PACKED_DIR_PLACEHOLDER}/`;
  const relativeDir = relative(projectDir, packedDir) || '.';
  const root = '';
  return mapTarballs(lock, (spec, path) => {
    if (!spec.startsWith(placeholder)) return spec;
    const file = spec.slice(placeholder.length);
    // The root's specs must equal package.json's (absolute, as create-agate writes them);
    // `resolved` is relative to the project, as npm writes it.
    return path === root ? `file:${packedDir}/${file}` : `file:${relativeDir}/${file}`;
  });
}

/** `lock` with every `file:` spec and `resolved` passed through `map`, and no integrity on tarball entries. */
function mapTarballs(lock: Lockfile, map: (spec: string, path: string) => string): Lockfile {
  const packages: Record<string, LockEntry> = {};
  for (const [path, entry] of Object.entries(lock.packages)) {
    const next: LockEntry = { ...entry };
    for (const field of DEPENDENCY_FIELDS) {
      const deps = entry[field];
      if (deps === undefined) continue;
      next[field] = Object.fromEntries(
        Object.entries(deps).map(([name, spec]) => [
          name,
          spec.startsWith('file:') ? map(spec, path) : spec,
        ]),
      );
    }
    if (entry.resolved?.startsWith('file:')) {
      next.resolved = map(entry.resolved, path);
      delete next.integrity;
    }
    packages[path] = next;
  }
  return { ...lock, packages };
}

const DEPENDENCY_FIELDS = [
  'dependencies',
  'devDependencies',
  'optionalDependencies',
  'peerDependencies',
] as const;

/** What a package declares (a packed manifest, or the root package.json). */
export interface DeclaredDependencies {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/**
 * How a committed lock disagrees with what is installed from it, as sentences (empty: it
 * agrees): the root's dependencies against the project's package.json, each of our tarballs'
 * dependencies against its manifest as packed, and every dependency in the tree against the
 * version the lock puts where Node would find it. npm ci itself only checks the first.
 */
export function staleLock(
  lock: Lockfile,
  root: DeclaredDependencies,
  ours: ReadonlyMap<string, DeclaredDependencies>,
): string[] {
  const problems: string[] = [];
  const compare = (path: string, what: string, declared: DeclaredDependencies) => {
    const entry = lock.packages[path];
    if (entry === undefined) {
      problems.push(`${what} is not in the lock`);
      return;
    }
    for (const field of DEPENDENCY_FIELDS) {
      // npm does not record a root's peers; a project declares none.
      if (path === '' && field === 'peerDependencies') continue;
      const want = declared[field] ?? {};
      const have = entry[field] ?? {};
      for (const name of new Set([...Object.keys(want), ...Object.keys(have)])) {
        if (want[name] !== have[name]) {
          problems.push(
            `${what}'s ${field}.${name} is ${quote(want[name])}; the lock says ${quote(have[name])}`,
          );
        }
      }
    }
  };
  compare('', 'the project', root);
  for (const [name, declared] of ours) {
    if (lock.packages[`node_modules/${name}`] !== undefined) {
      compare(`node_modules/${name}`, name, declared);
    }
  }
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (entry.link === true) continue;
    const requirements: [string, string, boolean][] = [
      ...Object.entries(entry.dependencies ?? {}).map(([n, r]): [string, string, boolean] => [
        n,
        r,
        false,
      ]),
      ...Object.entries(entry.optionalDependencies ?? {}).map(
        ([n, r]): [string, string, boolean] => [n, r, true],
      ),
      ...Object.entries(entry.peerDependencies ?? {}).map(([n, r]): [string, string, boolean] => [
        n,
        r,
        entry.peerDependenciesMeta?.[n]?.optional === true,
      ]),
      ...(path === ''
        ? Object.entries(entry.devDependencies ?? {}).map(([n, r]): [string, string, boolean] => [
            n,
            r,
            false,
          ])
        : []),
    ];
    const who = path === '' ? 'the project' : packageName(path);
    for (const [name, range, optional] of requirements) {
      const found = resolveFrom(lock, path, name);
      const target = found === undefined ? undefined : lock.packages[found];
      if (target === undefined) {
        if (!optional) problems.push(`${who} needs ${name}@${range}; the lock has none`);
        continue;
      }
      if (range.startsWith('file:') || target.version === undefined) continue;
      if (!semver.satisfies(target.version, range, { includePrerelease: true })) {
        problems.push(`${who} needs ${name}@${range}; the lock has ${target.version}`);
      }
    }
  }
  return problems;
}

const quote = (value: string | undefined) => (value === undefined ? 'absent' : `"${value}"`);

/** `node_modules/a/node_modules/@s/b` → `@s/b`. */
export function packageName(path: string): string {
  const at = path.lastIndexOf('node_modules/');
  return at === -1 ? path : path.slice(at + 'node_modules/'.length);
}

/** The lock path Node finds `name` at from the package at `path` (its own node_modules, then each ancestor's). */
function resolveFrom(lock: Lockfile, path: string, name: string): string | undefined {
  let base = path;
  for (;;) {
    const candidate = base === '' ? `node_modules/${name}` : `${base}/node_modules/${name}`;
    if (lock.packages[candidate] !== undefined) return candidate;
    if (base === '') return undefined;
    const at = base.lastIndexOf('/node_modules/');
    base = at === -1 ? '' : base.slice(0, at);
  }
}

/**
 * `package.json` ranges as `pnpm pack` writes them into a tarball: `workspace:*` → the
 * version, `workspace:^` / `workspace:~` → that range of the version, `workspace:<range>` →
 * the range.
 */
export function packedRanges(
  ranges: Record<string, string> | undefined,
  versions: ReadonlyMap<string, string>,
): Record<string, string> | undefined {
  if (ranges === undefined) return undefined;
  return Object.fromEntries(
    Object.entries(ranges).map(([name, range]) => {
      if (!range.startsWith('workspace:')) return [name, range];
      const rest = range.slice('workspace:'.length);
      const version = versions.get(name);
      if (rest !== '*' && rest !== '^' && rest !== '~') return [name, rest];
      if (version === undefined) throw new Error(`${name} is not a package of this workspace`);
      return [name, rest === '*' ? version : `${rest}${version}`];
    }),
  );
}

/** Each installed package name with the versions the lock holds of it. */
export function versionsByName(lock: Lockfile): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.link === true) continue;
    const name = packageName(path);
    const versions = byName.get(name) ?? [];
    if (entry.version !== undefined && !versions.includes(entry.version)) {
      versions.push(entry.version);
    }
    byName.set(name, versions);
  }
  for (const versions of byName.values()) versions.sort(semver.compare);
  return byName;
}

/** How a fresh registry install differs from the committed lock. */
export interface LockDrift {
  added: { name: string; versions: string[] }[];
  removed: { name: string; versions: string[] }[];
  changed: { name: string; from: string[]; to: string[] }[];
  /** Packages installed in more than one version by the fresh install. */
  duplicated: { name: string; versions: string[] }[];
}

export function lockDrift(committed: Lockfile, fresh: Lockfile): LockDrift {
  const was = versionsByName(committed);
  const now = versionsByName(fresh);
  const drift: LockDrift = { added: [], removed: [], changed: [], duplicated: [] };
  for (const [name, versions] of [...now].sort(([a], [b]) => a.localeCompare(b))) {
    const before = was.get(name);
    if (before === undefined) drift.added.push({ name, versions });
    else if (before.join() !== versions.join())
      drift.changed.push({ name, from: before, to: versions });
    if (versions.length > 1) drift.duplicated.push({ name, versions });
  }
  for (const [name, versions] of [...was].sort(([a], [b]) => a.localeCompare(b))) {
    if (!now.has(name)) drift.removed.push({ name, versions });
  }
  return drift;
}
