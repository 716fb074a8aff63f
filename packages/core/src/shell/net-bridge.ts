import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { childProcess } from '../ground/builtins.js';
import { PROXY_PORT_INSIDE } from './bwrap-args.js';
import { SandboxUnavailableError } from './shell-errors.js';

/**
 * The sandbox's end of the network: run with the host's node inside the sandbox's user and
 * network namespaces only (nsenter), so it listens on the sandbox's loopback yet stays outside
 * its mounts, its pid namespace and its seccomp filter. It pipes every connection to the
 * proxy's socket (its path is the first argument) and prints `ready` once it listens. The
 * command cannot see it, signal it or open Unix sockets of its own. It exits when its stdin
 * closes, so it does not outlive the agent.
 */
export const BRIDGE_SCRIPT = `const net = require('node:net');
const socketPath = process.argv[1];
const server = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.pipe(upstream).pipe(client);
});
server.listen(${PROXY_PORT_INSIDE}, '127.0.0.1', () => process.stdout.write('ready\\n'));
// Gone with the agent: its stdin closes when the agent's process ends, however it ends.
process.stdin.on('end', () => process.exit(0)).on('error', () => process.exit(0)).resume();
`;

/**
 * The sandbox's pid, once bubblewrap reports it on `info`: at its clone, before it makes its
 * mounts (`sandboxReady` says when those are done). Undefined when the sandbox never started
 * (bubblewrap's own error is then in the command's stderr).
 */
export async function sandboxPid(info: Readable): Promise<number | undefined> {
  const report = await readAll(info);
  const pid = /"child-pid"\s*:\s*(\d+)/.exec(report)?.[1];
  return pid === undefined ? undefined : Number(pid);
}

/**
 * Whether the sandbox's gate (bwrap-args.ts `SANDBOX_GATE`) said it is ready, its mounts made;
 * false when the pipe closes first (the sandbox never started).
 */
export function sandboxReady(ready: Readable): Promise<boolean> {
  return new Promise((resolve) => {
    ready.once('data', () => resolve(true));
    ready.once('end', () => resolve(false));
    ready.once('error', () => resolve(false));
    ready.once('close', () => resolve(false));
  });
}

/** Starts the network bridge in the user and network namespaces of sandbox `pid` and waits until it listens. */
export async function startBridge(pid: number, socket: string): Promise<ChildProcess> {
  const bridge = childProcess().spawn(
    'nsenter',
    [
      `--target=${pid}`,
      '--user',
      '--net',
      '--preserve-credentials',
      '--',
      process.execPath,
      '-e',
      BRIDGE_SCRIPT,
      socket,
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const ready = await new Promise<string | true>((resolve) => {
    let out = '';
    let err = '';
    bridge.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('ready')) resolve(true);
    });
    bridge.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
    });
    bridge.on('error', (error) =>
      resolve(
        (error as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'nsenter is not installed (Debian/Ubuntu: apt-get install util-linux)'
          : error.message,
      ),
    );
    bridge.on('exit', (code) => resolve(err.trim() || `the bridge exited with ${code}`));
  });
  if (ready !== true) {
    bridge.kill('SIGKILL');
    throw new SandboxUnavailableError(
      `<Shell> could not start the network bridge for sandbox.network: ${ready}.`,
    );
  }
  return bridge;
}

function readAll(stream: Readable): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      text += chunk;
    });
    stream.on('end', () => resolve(text));
    stream.on('error', () => resolve(text));
    stream.on('close', () => resolve(text));
  });
}
