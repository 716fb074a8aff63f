import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseAllowList } from './net-allow.js';

/** `<Shell sandbox>`: what a command may touch. Every field has a safe default. */
export interface SandboxOptions {
  /** Directories the command may write, besides its private temp dir. Default: `[cwd]`. */
  write?: readonly string[];
  /** Paths it may not read (hidden behind an empty file or folder), added to the defaults. */
  denyRead?: readonly string[];
  /**
   * `false` (default): no network at all. `{ allow }`: through a filtering proxy, to these
   * `host[:port]` entries only (`registry.npmjs.org`, `*.example.com`, `localhost:8080`,
   * `[::1]:8080`); an entry without a port allows 80 and 443. Addresses of this host and its
   * private networks are reached only through an entry naming that exact host and port.
   */
  network?: false | { allow: readonly string[] };
  /** Size of the private temp dir (`/tmp` inside), in bytes. Default 64 MiB. */
  tmpSizeBytes?: number;
  /** Processes (and threads) the command may run at once; stops a fork bomb. Default 256. */
  maxProcesses?: number;
  /**
   * Memory the command (with everything it starts, and what it writes to `/tmp`) may use, in
   * bytes. Over it the command is killed and the model reads its exit code. Default 4 GiB.
   */
  memoryBytes?: number;
  /**
   * `true` lets commands write the files the host runs later (`.git/hooks`, `.git/config`,
   * `.git/config.worktree`, `.git/info/`, shell rc files, `.envrc`, `.npmrc`, `.pnpmfile.cjs`,
   * yarn's rc files, editor and dev-container folders; docs/shell.md) inside the writable folders. Default
   * `false`: those stay read-only, and absent ones cannot be created.
   */
  allowHostRunFileWrites?: boolean;
  /**
   * When the agent runs as root: `false` (default) runs commands as the unprivileged uid 65534,
   * with each writable folder mapped to it, so files only root may read stay unreadable. `true`
   * keeps root's uid, and with it every root-only file readable; use it only where the mapping
   * cannot be made (docs/shell.md).
   */
  runAsHostRoot?: boolean;
}

/** The sandbox of one shell, every default filled in and every path absolute. */
export interface SandboxPolicy {
  cwd: string;
  write: string[];
  denyRead: string[];
  network: false | { allow: string[] };
  tmpSizeBytes: number;
  maxProcesses: number;
  memoryBytes: number;
  allowHostRunFileWrites: boolean;
  runAsHostRoot: boolean;
}

export const DEFAULT_TMP_SIZE_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_PROCESSES = 256;
export const DEFAULT_MEMORY_BYTES = 4 * 1024 * 1024 * 1024;

/** Where `agate keys new` is told to keep keys (docs/security.md), and the variables naming them. */
const KEYS_FOLDER = '.agate-keys';
const PRIVATE_KEY_FILE_ENV = 'AGATE_APPROVAL_KEY_FILE';
const PUBLIC_KEY_ENV = 'AGATE_APPROVAL_PUBLIC_KEY';
const PRIVATE_KEY_NAME = 'agate-approval.key';

/**
 * Read-protected by default: credentials a prompt-injected command would go for, Agate's
 * approval keys (`~/.agate-keys`, the file `AGATE_APPROVAL_KEY_FILE` names, and the public key
 * `AGATE_APPROVAL_PUBLIC_KEY` names with the private key kept beside it), `.env` files in the
 * folders above `cwd` and in the home folder, and the default session store (`.agate`) of
 * `cwd` and of the host process's working directory: another session's files are not this
 * command's business.
 */
export function defaultDenyRead(
  cwd: string,
  home = homedir(),
  hostCwd = process.cwd(),
  env: Readonly<Record<string, string | undefined>> = process.env,
): string[] {
  const paths = [
    join(home, '.ssh'),
    join(home, '.aws'),
    join(home, '.config', 'gcloud'),
    join(home, '.netrc'),
    join(home, '.env'),
    join(home, KEYS_FOLDER),
    join(cwd, '.agate'),
    join(hostCwd, '.agate'),
  ];
  const privateKey = env[PRIVATE_KEY_FILE_ENV];
  if (privateKey !== undefined && privateKey !== '') paths.push(resolve(hostCwd, privateKey));
  const publicKey = env[PUBLIC_KEY_ENV];
  // The variable holds a PEM or a path; only a path names a folder that may hold the pair.
  if (publicKey !== undefined && publicKey !== '' && !publicKey.includes('-----BEGIN')) {
    const file = resolve(hostCwd, publicKey);
    paths.push(file, join(dirname(file), PRIVATE_KEY_NAME));
  }
  for (let dir = dirname(cwd); ; dir = dirname(dir)) {
    paths.push(join(dir, '.env'));
    if (dirname(dir) === dir) break;
  }
  return [...new Set(paths)];
}

function checkWhole(name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`sandbox.${name} must be a whole number >= ${min}, got ${String(value)}.`);
  }
}

export function resolvePolicy(cwd: string, options: SandboxOptions = {}): SandboxPolicy {
  const root = resolve(cwd);
  const tmpSizeBytes = options.tmpSizeBytes ?? DEFAULT_TMP_SIZE_BYTES;
  const maxProcesses = options.maxProcesses ?? DEFAULT_MAX_PROCESSES;
  const memoryBytes = options.memoryBytes ?? DEFAULT_MEMORY_BYTES;
  checkWhole('tmpSizeBytes', tmpSizeBytes, 4096);
  checkWhole('maxProcesses', maxProcesses, 2);
  // Below this a shell and a small tool cannot start; the cap is for runaway commands.
  checkWhole('memoryBytes', memoryBytes, 16 * 1024 * 1024);
  const network = options.network;
  // Malformed entries are refused here, before any command runs (NetworkAllowEntryError).
  if (network !== undefined && network !== false) parseAllowList(network.allow);
  return {
    cwd: root,
    write: [...new Set((options.write ?? [root]).map((p) => resolve(root, p)))],
    denyRead: [
      ...new Set([
        ...defaultDenyRead(root),
        ...(options.denyRead ?? []).map((p) => resolve(root, p)),
      ]),
    ],
    network: network === undefined || network === false ? false : { allow: [...network.allow] },
    tmpSizeBytes,
    maxProcesses,
    memoryBytes,
    allowHostRunFileWrites: options.allowHostRunFileWrites === true,
    runAsHostRoot: options.runAsHostRoot === true,
  };
}

const SECRET_NAME = /(_KEY|_TOKEN|_SECRET)$|PASSWORD|^AGATE_APPROVAL/i;

/** Variables that look like secrets (`*_KEY`, `*_TOKEN`, `*_SECRET`, `*PASSWORD*`, Agate's approval keys). */
export function looksSecret(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * The host variables a command sees: what tools need to find themselves and speak the locale.
 * The locale ones are the POSIX categories and the GNU additions by name, not `LC_*`: a prefix
 * would pass whatever a host names `LC_SECRET`.
 */
const PASSED_THROUGH = new Set([
  'PATH',
  'HOME',
  'LANG',
  'TERM',
  'TZ',
  'USER',
  'LC_ALL',
  'LC_CTYPE',
  'LC_COLLATE',
  'LC_MESSAGES',
  'LC_MONETARY',
  'LC_NUMERIC',
  'LC_TIME',
  'LC_ADDRESS',
  'LC_IDENTIFICATION',
  'LC_MEASUREMENT',
  'LC_NAME',
  'LC_PAPER',
  'LC_TELEPHONE',
]);

export function passedThrough(name: string): boolean {
  return PASSED_THROUGH.has(name);
}

/**
 * The command's environment: an allow-list of the host's (`PATH`, `HOME`, `LANG`, the locale
 * categories `LC_ALL`, `LC_CTYPE` …, `TERM`, `TZ`, `USER`), plus `extra` (passed explicitly, so kept whatever its name). Anything
 * else the host holds (a `DATABASE_URL` with its password, `SECRET_KEY_BASE`, a bus address)
 * stays out, whether or not its name looks secret.
 */
export function commandEnvironment(
  host: Readonly<Record<string, string | undefined>>,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(host)) {
    if (value !== undefined && passedThrough(name)) env[name] = value;
  }
  return { ...env, ...extra };
}

/** `path` is `dir` or lies beneath it. */
export function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}
