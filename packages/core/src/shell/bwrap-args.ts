import type { SandboxPolicy } from './policy.js';

/** Where the network bridge and its socket appear inside the sandbox (its private /tmp). */
export const PROXY_SOCKET_INSIDE = '/tmp/.agate-proxy.sock';
export const BRIDGE_SCRIPT_INSIDE = '/tmp/.agate-bridge.mjs';
export const BRIDGE_READY_INSIDE = '/tmp/.agate-proxy-ready';
export const PROXY_PORT_INSIDE = 3128;
/** The unprivileged user the command runs as inside the sandbox. */
export const SANDBOX_UID = 1000;

export interface SandboxPaths {
  /** The kind of each deny-read path that exists (others have nothing to hide). */
  denied: ReadonlyArray<{ path: string; kind: 'dir' | 'file' }>;
  /** With a network allow-list: the host proxy's socket and the bridge script. */
  proxy?: { socket: string; bridge: string; node: string };
}

/**
 * The bubblewrap command line for one command. Order matters: the read-only root first, then
 * the private /tmp (size-limited tmpfs), then the writable folders (they may lie under /tmp),
 * then what may not be read, hidden on top of everything else.
 */
export function bwrapArgs(
  policy: SandboxPolicy,
  paths: SandboxPaths,
  env: Readonly<Record<string, string>>,
  command: string,
): string[] {
  const args = [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--size',
    String(policy.tmpSizeBytes),
    '--tmpfs',
    '/tmp',
  ];
  for (const dir of policy.write) args.push('--bind', dir, dir);
  for (const { path, kind } of paths.denied) {
    if (kind === 'dir') args.push('--tmpfs', path);
    else args.push('--ro-bind', '/dev/null', path);
  }
  if (paths.proxy !== undefined) {
    args.push('--bind', paths.proxy.socket, PROXY_SOCKET_INSIDE);
    args.push('--ro-bind', paths.proxy.bridge, BRIDGE_SCRIPT_INSIDE);
  }
  args.push(
    // A new user, pid, network, IPC, UTS and cgroup namespace: no host processes to signal,
    // no network but loopback, and an unprivileged uid (setuid bits do not apply: no_new_privs).
    '--unshare-all',
    '--uid',
    String(SANDBOX_UID),
    '--gid',
    String(SANDBOX_UID),
    '--die-with-parent',
    '--new-session',
    '--chdir',
    policy.cwd,
    '--clearenv',
  );
  for (const [name, value] of Object.entries(env)) args.push('--setenv', name, value);
  if (paths.proxy !== undefined) {
    const proxy = `http://127.0.0.1:${PROXY_PORT_INSIDE}`;
    for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']) {
      args.push('--setenv', name, proxy);
    }
    args.push('--unsetenv', 'NO_PROXY', '--unsetenv', 'no_proxy');
    // Start the bridge, wait (bounded) until it listens, then run the command.
    const wrapper =
      `${quote(paths.proxy.node)} ${BRIDGE_SCRIPT_INSIDE} & i=0; ` +
      `while [ ! -e ${BRIDGE_READY_INSIDE} ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done; ` +
      'exec /bin/sh -c "$1"';
    args.push('--', '/bin/sh', '-c', wrapper, 'agate-shell', command);
  } else {
    args.push('--', '/bin/sh', '-c', command);
  }
  return args;
}

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
