import type { SandboxPolicy } from './policy.js';

/** The port the network bridge listens on, on the sandbox's own loopback. */
export const PROXY_PORT_INSIDE = 3128;
/** The uid (and gid) a command gets inside when the agent is root. */
export const SANDBOX_UID = 1000;
/**
 * File descriptors bubblewrap is given: the seccomp program, and where it reports the
 * sandbox's pid. The command's gate (`SANDBOX_GATE`) gets two more: where it says the sandbox
 * is ready, and what it waits on before the command runs (the tmpfs inode caps, and with a
 * network allow-list the bridge, are set up meanwhile).
 */
export const SECCOMP_FD = 3;
export const INFO_FD = 4;
export const BLOCK_FD = 5;
/**
 * The tmpfs remount helper's stdin (the sandbox's pid) and stdout (its status): it is started
 * beside bubblewrap by the launching shell, which closes both before it starts bubblewrap.
 */
export const REMOUNT_PID_FD = 6;
export const REMOUNT_STATUS_FD = 7;
export const READY_FD = 8;
/** The first of the descriptors that carry file contents bound in (`--ro-bind-data`). */
export const FIRST_DATA_FD = 9;
/** A denied folder gets an empty, read-only tmpfs; this caps it all the same. */
const DENIED_TMPFS_BYTES = 4096;

export interface SandboxPaths {
  /** The kind of each deny-read path that exists (others have nothing to hide). */
  denied: ReadonlyArray<{ path: string; kind: 'dir' | 'file' }>;
  /** Host-run files in the writable folders (docs/shell.md): folders pinned in place, and what is bound read-only. */
  hostRun: { pins: readonly string[]; readOnly: readonly string[] };
  /** Files shown with other contents, read from descriptors `FIRST_DATA_FD` on, in this order. */
  data?: readonly string[];
  /** With a network allow-list: the bridge is started in the sandbox's network once bubblewrap reports it. */
  network: boolean;
  /**
   * The agent runs as root: the command gets uid 1000 inside (not 0). Otherwise it keeps the
   * agent's own uid, so bubblewrap needs no second, nested user namespace, and the bridge,
   * joining the sandbox's user namespace, may join its network too.
   */
  rootHost: boolean;
}

/**
 * What runs first inside the sandbox, once bubblewrap has made every mount: it says so on
 * `READY_FD`, waits for the host's `go` on `BLOCK_FD` (the host caps the tmpfs inodes
 * meanwhile), closes both, and becomes `/bin/sh -c` of the command. bubblewrap's own
 * `--block-fd` would hold the command too, but nothing would tell the host when bubblewrap got
 * there: the pid on `--info-fd` comes at the clone, before the mounts. Anything but `go` (the
 * host died: end of input) runs nothing.
 */
export const SANDBOX_GATE =
  `echo ready >&${READY_FD}; exec ${READY_FD}>&-; read go <&${BLOCK_FD}; exec ${BLOCK_FD}<&-; ` +
  `[ "$go" = go ] || exit 125; exec /bin/sh -c "$1"`;

/**
 * The bubblewrap command line for one command. Order matters: the read-only root first, then
 * the size-capped tmpfs on `/dev/shm` and `/tmp`, then the writable folders (they may lie under
 * `/tmp`), then the host-run files inside them, then what may not be read, hidden on top of
 * everything else; the tmpfs mounts that must stay empty are made read-only last.
 */
export function bwrapArgs(
  policy: SandboxPolicy,
  paths: SandboxPaths,
  env: Readonly<Record<string, string>>,
  command: string,
): string[] {
  const size = String(policy.tmpSizeBytes);
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--size', size, '--tmpfs', '/dev/shm'];
  args.push('--proc', '/proc', '--size', size, '--tmpfs', '/tmp');
  for (const dir of policy.write) args.push('--bind', dir, dir);
  // A pinned folder is a mount point: it cannot be renamed or removed, so a `.git` stays put.
  for (const dir of paths.hostRun.pins) args.push('--bind', dir, dir);
  for (const path of paths.hostRun.readOnly) args.push('--ro-bind', path, path);
  (paths.data ?? []).forEach((path, i) => {
    args.push('--ro-bind-data', String(FIRST_DATA_FD + i), path);
  });
  const emptyFolders: string[] = [];
  for (const { path, kind } of paths.denied) {
    if (kind === 'dir') {
      args.push('--size', String(DENIED_TMPFS_BYTES), '--tmpfs', path);
      emptyFolders.push(path);
    } else {
      args.push('--ro-bind', '/dev/null', path);
    }
  }
  // /dev is a tmpfs too: read-only, its devices still work.
  args.push('--remount-ro', '/dev');
  for (const dir of emptyFolders) args.push('--remount-ro', dir);
  // A new user, pid, network, IPC, UTS and cgroup namespace: no host processes to signal,
  // no network but loopback, and an unprivileged uid (setuid bits do not apply: no_new_privs).
  args.push('--unshare-all');
  if (paths.rootHost) args.push('--uid', String(SANDBOX_UID), '--gid', String(SANDBOX_UID));
  args.push('--die-with-parent', '--new-session', '--chdir', policy.cwd, '--clearenv');
  for (const [name, value] of Object.entries(env)) args.push('--setenv', name, value);
  if (paths.network) {
    const proxy = `http://127.0.0.1:${PROXY_PORT_INSIDE}`;
    for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']) {
      args.push('--setenv', name, proxy);
    }
    args.push('--unsetenv', 'NO_PROXY', '--unsetenv', 'no_proxy');
  }
  // The host learns the sandbox's pid here (for the bridge and the inode caps).
  args.push('--info-fd', String(INFO_FD));
  // No Unix sockets, no io_uring, no new user namespaces (seccomp-filter.ts).
  args.push('--seccomp', String(SECCOMP_FD));
  args.push('--', '/bin/sh', '-c', SANDBOX_GATE, 'agate-sandbox', command);
  return args;
}
