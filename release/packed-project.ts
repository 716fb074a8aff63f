import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type InstallFacts, measureNodeModules } from './node-modules.js';
import type { PackedPackage } from './pack-all.js';
import {
  fromTemplate,
  type LockedProject,
  type Lockfile,
  PACKED_DIR_PLACEHOLDER,
  parseLock,
  RELOCK_COMMAND,
  readCommittedLock,
  StaleLockError,
  toTemplate,
} from './packed-lock.js';
import { cleanEnv } from './workspace.js';

const exec = promisify(execFile);

/**
 * Issue 39's limits for a project that runs agents: @agate/core and @agate/cli with their
 * peers (ai, react, zod). Decimal megabytes of the files' own sizes.
 */
export const RUNTIME_LIMITS = { packages: 70, bytes: 60e6 };

/** The project `create-agate --from` wrote from the tarballs, installed; and its runtime alone. */
export interface PackedProject {
  dir: string;
  /** Each project's lock after the install, in the committed form (release/packed-lock.ts). */
  locks: Record<LockedProject, Lockfile>;
  /**
   * A project holding the starter's dependencies only (core, cli, ai, react, zod), installed:
   * what running an agent needs. (Not `npm install --omit=dev` of the starter: the CLI's
   * optional peer @agate/testing, present as a dev dependency, would count as a runtime one.)
   */
  runtime: InstallFacts;
  /** The starter, installed: the above and its test runner. */
  full: InstallFacts;
  /**
   * The `durable` template's project (`create-agate --template durable`), installed: its
   * worker needs @agate/dbos and PostgreSQL's driver, which the starter must not hold, so it
   * has an install of its own (beside the others, at the same time).
   */
  durableDir: string;
  /** `create-agate --template chat`, installed from its own lock (its page adds dependencies). */
  chatDir: string;
}

/** Runs a command in `cwd` with a clean environment; throws with its output when it fails. */
export function run(command: string, args: string[], cwd: string, timeout = 300_000): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: cleanEnv(), timeout });
  if (result.status !== 0) {
    throw new Error(
      `\`${command} ${args.join(' ')}\` in ${cwd} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`}):\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout;
}

const NPM_QUIET = ['--no-audit', '--no-fund', '--prefer-offline'];

/**
 * How the projects get their versions:
 * - `committed` (the packed tests): `npm ci` from release/packed-lock/, exactly those versions;
 *   the registry's news cannot change the result.
 * - `update` (`pnpm packed:lock`): `npm install` starting from the committed lock, so npm keeps
 *   every locked version that still fits and resolves only what changed.
 * - `fresh` (`pnpm check:registry`): `npm install` with no lock, what a new user gets today.
 */
export type LockMode = 'committed' | 'update' | 'fresh';

/** Installs `project` in `cwd` as `mode` says; rejects with npm's output when it fails. */
/**
 * The lock without our tarballs' entries: `npm install` keeps a `file:` entry whose version did
 * not change as the lock has it, so a changed manifest (a new peer dependency) would never
 * reach the lock; without them npm reads each tarball's package.json again.
 */
function withoutOurs(lock: Lockfile): Lockfile {
  const packages = Object.fromEntries(
    Object.entries(lock.packages).filter(
      ([path, entry]) =>
        path === '' || !entry.resolved?.startsWith(`file:${PACKED_DIR_PLACEHOLDER}/`),
    ),
  );
  return { ...lock, packages };
}

async function npmInstall(
  cwd: string,
  project: LockedProject,
  packedDir: string,
  mode: LockMode,
): Promise<Lockfile> {
  const committed = mode === 'fresh' ? undefined : readCommittedLock(project);
  if (mode === 'committed' && committed === undefined) {
    throw new StaleLockError(project, ['there is no committed lock']);
  }
  if (committed !== undefined) {
    writeFileSync(
      join(cwd, 'package-lock.json'),
      `${JSON.stringify(fromTemplate(mode === 'update' ? withoutOurs(committed) : committed, packedDir, cwd), null, 2)}\n`,
    );
  }
  const command = mode === 'committed' ? 'ci' : 'install';
  try {
    await exec('npm', [command, ...NPM_QUIET], { cwd, env: cleanEnv(), timeout: 300_000 });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    const hint =
      mode === 'committed'
        ? ` (from release/packed-lock/${project}/package-lock.json; if package.json and the lock are out of sync, run \`${RELOCK_COMMAND}\`)`
        : '';
    throw new Error(`npm ${command} in ${cwd} failed${hint}:\n${stdout}\n${stderr}`);
  }
  // npm ci leaves the lock as it was given; install writes what it resolved.
  const lock = parseLock(readFileSync(join(cwd, 'package-lock.json'), 'utf8'), cwd);
  return toTemplate(lock, packedDir, cwd);
}

/**
 * What a new user does with a clone's tarballs: `create-agate --from <folder>` (the packed
 * create-agate, run the way `npm create` runs it: `npm exec` of the package), then
 * `npm install` in the project (`npm ci` from the committed lock, see LockMode). npm, not pnpm: npm is what every user has, and its flat
 * `node_modules` is what the package counts mean.
 */
export async function createPackedProject(
  packedDir: string,
  packed: PackedPackage[],
  root: string,
  mode: LockMode = 'committed',
): Promise<PackedProject> {
  const creator = packed.find((p) => p.name === 'create-agate');
  if (creator === undefined) throw new Error(`no create-agate tarball in ${packedDir}`);
  const create = (...args: string[]) =>
    run(
      'npm',
      [
        'exec',
        '--yes',
        // A cache of its own: npm exec keeps a package it ran by version, and would run an
        // older build of the same version again.
        `--cache=${join(root, 'npm-exec-cache')}`,
        `--package=${join(packedDir, creator.file)}`,
        '--',
        'create-agate',
        ...args,
        '--from',
        packedDir,
      ],
      root,
    );
  create('my-agent');
  create('durable-agent', '--template', 'durable');
  create('chat-agent', '--template', 'chat');
  const dir = join(root, 'my-agent');
  const chatDir = join(root, 'chat-agent');
  const starter = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    allowScripts?: Record<string, boolean>;
  };
  const runtimeDir = join(root, 'runtime-only');
  mkdirSync(runtimeDir);
  writeFileSync(
    join(runtimeDir, 'package.json'),
    JSON.stringify({
      name: 'runtime-only',
      private: true,
      type: 'module',
      dependencies: starter.dependencies,
      allowScripts: starter.allowScripts,
    }),
  );
  const durableDir = join(root, 'durable-agent');
  // Side by side: four folders, one npm cache (safe for concurrent use).
  const [runtimeLock, fullLock, durableLock, chatLock] = await Promise.all([
    npmInstall(runtimeDir, 'runtime-only', packedDir, mode),
    npmInstall(dir, 'my-agent', packedDir, mode),
    npmInstall(durableDir, 'durable-agent', packedDir, mode),
    npmInstall(chatDir, 'chat-agent', packedDir, mode),
  ]);
  const runtime = measureNodeModules(join(runtimeDir, 'node_modules'));
  const full = measureNodeModules(join(dir, 'node_modules'));
  return {
    dir,
    locks: {
      'my-agent': fullLock,
      'runtime-only': runtimeLock,
      'durable-agent': durableLock,
      'chat-agent': chatLock,
    },
    runtime,
    full,
    durableDir,
    chatDir,
  };
}
