import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** `<Shell sandbox>`: what a command may touch. Every field has a safe default. */
export interface SandboxOptions {
  /** Directories the command may write, besides its private temp dir. Default: `[cwd]`. */
  write?: readonly string[];
  /** Paths it may not read (hidden behind an empty file or folder), added to the defaults. */
  denyRead?: readonly string[];
  /** `false` (default): no network at all. `{ allow }`: HTTP(S) only, to these hosts, through a filtering proxy. */
  network?: false | { allow: readonly string[] };
  /** Size of the private temp dir (`/tmp` inside), in bytes. Default 64 MiB. */
  tmpSizeBytes?: number;
  /** Processes (and threads) the command may run at once; stops a fork bomb. Default 256. */
  maxProcesses?: number;
}

/** The sandbox of one shell, every default filled in and every path absolute. */
export interface SandboxPolicy {
  cwd: string;
  write: string[];
  denyRead: string[];
  network: false | { allow: string[] };
  tmpSizeBytes: number;
  maxProcesses: number;
}

export const DEFAULT_TMP_SIZE_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_PROCESSES = 256;

/**
 * Read-protected by default: credentials a prompt-injected command would go for, `.env` files
 * in the folders above `cwd` and in the home folder, and the default session store (`.agate`)
 * of `cwd` and of the host process's working directory: another session's files are not this
 * command's business.
 */
export function defaultDenyRead(cwd: string, home = homedir(), hostCwd = process.cwd()): string[] {
  const paths = [
    join(home, '.ssh'),
    join(home, '.aws'),
    join(home, '.config', 'gcloud'),
    join(home, '.netrc'),
    join(home, '.env'),
    join(cwd, '.agate'),
    join(hostCwd, '.agate'),
  ];
  for (let dir = dirname(cwd); ; dir = dirname(dir)) {
    paths.push(join(dir, '.env'));
    if (dirname(dir) === dir) break;
  }
  return [...new Set(paths)];
}

export function resolvePolicy(cwd: string, options: SandboxOptions = {}): SandboxPolicy {
  const root = resolve(cwd);
  const tmpSizeBytes = options.tmpSizeBytes ?? DEFAULT_TMP_SIZE_BYTES;
  const maxProcesses = options.maxProcesses ?? DEFAULT_MAX_PROCESSES;
  if (!Number.isSafeInteger(tmpSizeBytes) || tmpSizeBytes < 4096) {
    throw new RangeError(
      `sandbox.tmpSizeBytes must be a whole number >= 4096, got ${String(tmpSizeBytes)}.`,
    );
  }
  if (!Number.isSafeInteger(maxProcesses) || maxProcesses < 2) {
    throw new RangeError(
      `sandbox.maxProcesses must be a whole number >= 2, got ${String(maxProcesses)}.`,
    );
  }
  const network = options.network;
  if (network !== undefined && network !== false) {
    const bad = network.allow.filter((h) => !/^(\*\.)?[A-Za-z0-9.-]+(:\d+)?$/.test(h));
    if (bad.length > 0) {
      throw new RangeError(
        `sandbox.network.allow takes host names (registry.npmjs.org, *.example.com), got ${bad.map((h) => JSON.stringify(h)).join(', ')}.`,
      );
    }
  }
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
  };
}

const SECRET_NAME = /(_KEY|_TOKEN|_SECRET)$|PASSWORD|^AGATE_APPROVAL/i;

/** Variables that look like secrets (`*_KEY`, `*_TOKEN`, `*_SECRET`, `*PASSWORD*`, Agate's approval keys). */
export function looksSecret(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * The command's environment: the host's minus anything that looks like a secret, plus `extra`
 * (passed explicitly, so it is kept even when its name looks secret).
 */
export function commandEnvironment(
  host: Readonly<Record<string, string | undefined>>,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(host)) {
    if (value !== undefined && !looksSecret(name)) env[name] = value;
  }
  return { ...env, ...extra };
}
