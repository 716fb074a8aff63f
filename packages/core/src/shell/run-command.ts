import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { childProcess } from '../ground/builtins.js';
import {
  BLOCK_FD,
  bwrapArgs,
  FIRST_DATA_FD,
  INFO_FD,
  READY_FD,
  REMOUNT_PID_FD,
  REMOUNT_STATUS_FD,
  type SandboxPaths,
  SECCOMP_FD,
} from './bwrap-args.js';
import { type HostRunPlan, hostRunPlan, placeholderExcludes } from './host-run-files.js';
import { checkHostUser, helperArgs, hostUserPlan, reachable } from './host-user.js';
import { inheritedFds, withInheritedFdsClosed } from './inherited-fds.js';
import { sandboxPid, sandboxReady, startBridge } from './net-bridge.js';
import { startAllowListProxy } from './net-proxy.js';
import { holdPlaceholders } from './placeholders.js';
import type { SandboxPolicy } from './policy.js';
import { checkSandbox } from './probe.js';
import { resourceLimits } from './resource-limits.js';
import { encodeProgram, seccompArch, socketFilterProgram } from './seccomp-filter.js';
import { SandboxUnavailableError } from './shell-errors.js';
import {
  capTmpfsInodes,
  remountHelperArgs,
  remountOptions,
  remountStatus,
} from './tmpfs-inodes.js';

/** What a shell call returns to the model. */
export interface ShellResult {
  /** The command's exit code; null when it was killed. */
  exitCode: number | null;
  /** Its standard output, cut to the output limit. */
  stdout: string;
  /** Its standard error, cut to the output limit. */
  stderr: string;
  /** It was killed at its time limit. */
  timedOut: boolean;
}

export interface RunOptions {
  command: string;
  /** `false`: no sandbox (the command runs on the host with the user's rights). */
  policy: SandboxPolicy | false;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputChars: number;
  signal: AbortSignal;
  /** The bubblewrap binary. Default `bwrap` on the PATH. */
  bwrap?: string;
}

let filter: Buffer | undefined;

/** The seccomp program for this machine, built once. */
function seccompProgram(): Buffer {
  if (filter !== undefined) return filter;
  const arch = seccompArch();
  if (arch === undefined) {
    throw new SandboxUnavailableError(
      `<Shell> has no seccomp filter for ${process.arch} (x64 and arm64 only), so it cannot keep ` +
        'commands away from Unix sockets here. To run commands without a sandbox, say so: <Shell sandbox={false}>.',
    );
  }
  filter = encodeProgram(socketFilterProgram(arch));
  return filter;
}

const NO_HOST_RUN: HostRunPlan = { pins: [], readOnly: [], placeholders: [] };

/**
 * Runs one command and resolves when it and everything it started are gone. On timeout or
 * abort the whole tree is killed: inside the sandbox it lives in its own pid namespace, so
 * killing bubblewrap (which dies with its parent and takes the namespace's init with it) ends
 * every process the command started, in the background, with nohup, setsid or a double fork.
 */
export async function runShellCommand(options: RunOptions): Promise<ShellResult> {
  const { policy } = options;
  if (policy === false) return collect(spawnHost(options), options);
  checkSandbox(options.bwrap);
  const program = seccompProgram();
  const hostUser = hostUserPlan(policy, options.env.PATH);
  if (hostUser !== undefined) checkHostUser();
  // Cleanups in two lanes run at once at the end: the network's in order (the bridge goes
  // before the proxy it feeds, the proxy's folder last), and the rest, independent of it and
  // of each other (the placeholders, the cgroups).
  const network: Array<() => void | Promise<void>> = [];
  const others: Array<() => Promise<void>> = [];
  try {
    const held = policy.allowHostRunFileWrites
      ? { plan: NO_HOST_RUN, paths: [], release: async () => {} }
      : await holdPlaceholders(() => hostRunPlan(policy.write));
    others.push(() => held.release());
    const { paths, data } = sandboxView(policy, hostUser, held);
    let socket: string | undefined;
    if (policy.network !== false) {
      const dir = mkdtempSync(join(tmpdir(), 'agate-net-'));
      network.push(() => rmSync(dir, { recursive: true, force: true }));
      socket = join(dir, 'proxy.sock');
      const proxy = await startAllowListProxy(socket, policy.network.allow);
      network.push(() => proxy.close());
    }
    const limits = resourceLimits(policy);
    others.push(() => limits.release());
    const env = hostUser === undefined ? options.env : trustRepositories(options.env);
    const bwrap = [options.bwrap ?? 'bwrap', ...bwrapArgs(policy, paths, env, options.command)];
    const remount = remountHelperArgs(policy.tmpSizeBytes);
    // On a root host the host-user helper, perl already, forks the remount helper itself.
    const capInHelper = hostUser !== undefined && remount !== undefined;
    const stdio = [
      'ignore' as const,
      ...Array.from({ length: FIRST_DATA_FD - 1 + data.length }, () => 'pipe' as const),
    ];
    // Descriptors the agent inherited without close-on-exec must not reach the command; none,
    // the common case. On a root host the host-user helper closes them as it starts (only the
    // launching shell holds them before it); elsewhere a perl closer runs before the launcher.
    const inherited = inheritedFds(stdio.length);
    const argv =
      hostUser === undefined
        ? bwrap
        : [
            'perl',
            ...helperArgs(
              hostUser,
              bwrap,
              capInHelper ? remountOptions(policy.tmpSizeBytes) : undefined,
              inherited,
            ),
          ];
    const launcherArgs = capInHelper ? [] : (remount ?? []);
    const [file, args] = withInheritedFdsClosed(
      '/bin/sh',
      [
        '-c',
        launcherScript(limits.prelude, launcherArgs.length, capInHelper),
        'agate-sandbox',
        ...launcherArgs,
        ...argv,
      ],
      hostUser === undefined ? inherited : [],
    );
    const child = childProcess().spawn(file, args, {
      // bubblewrap changes to the command's folder itself, in the sandbox's view.
      cwd: '/',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      stdio,
      detached: true,
    }) as ChildProcess;
    // bubblewrap closes these once read; a reset on our end of them is not an error.
    for (const stream of child.stdio.slice(SECCOMP_FD)) stream?.on('error', () => {});
    (extraFd(child, SECCOMP_FD) as Writable).end(program);
    data.forEach((content, i) => {
      (extraFd(child, FIRST_DATA_FD + i) as Writable).end(content);
    });
    const kills: Kills = { happened: false };
    const result = collect(child, options, kills);
    try {
      const bridge = await openGate(child, socket, () => kills.happened || options.signal.aborted);
      if (bridge !== undefined) network.push(() => void bridge.kill('SIGKILL'));
    } catch (error) {
      killTree(child, kills);
      await result.catch(() => undefined);
      throw error;
    }
    const done = await result;
    if (limits.oomKilled()) {
      done.stderr += `${done.stderr === '' || done.stderr.endsWith('\n') ? '' : '\n'}[<Shell>: killed for going over sandbox.memoryBytes (${formatBytes(policy.memoryBytes)})]\n`;
    }
    if (done.exitCode === 125 && done.stderr.startsWith('agate-sandbox:')) {
      throw new SandboxUnavailableError(
        `<Shell> could not prepare the sandbox: ${done.stderr.trim()}. To keep root's uid inside ` +
          'the sandbox instead, say so: sandbox.runAsHostRoot: true.',
      );
    }
    return done;
  } finally {
    const inOrder = async () => {
      for (const cleanup of network.reverse()) await cleanup();
    };
    await Promise.all([inOrder(), ...others.map((cleanup) => cleanup())]);
  }
}

/** What the sandbox shows of the host: hidden paths, host-run files, files shown with other contents. */
function sandboxView(
  policy: SandboxPolicy,
  hostUser: ReturnType<typeof hostUserPlan>,
  held: { plan: HostRunPlan; paths: readonly string[] },
): { paths: SandboxPaths; data: string[] } {
  const hostRun = held.plan;
  const excludes = placeholderExcludes(policy.write, held.paths).filter((e) =>
    reachable(hostUser, e.path),
  );
  const visible = (path: string) => reachable(hostUser, path);
  const paths: SandboxPaths = {
    denied: deniedPaths(policy.denyRead).filter((d) => visible(d.path)),
    hostRun: {
      pins: hostRun.pins.filter(visible),
      readOnly: [...hostRun.readOnly, ...hostRun.placeholders.map((p) => p.path)]
        .filter(visible)
        .filter((path) => existsSync(path)),
    },
    data: excludes.map((e) => e.path),
    network: policy.network !== false,
    rootHost: process.getuid?.() === 0,
  };
  return { paths, data: excludes.map((e) => e.content) };
}

/**
 * Lets the sandboxed command go once the sandbox is ready: the pid comes at bubblewrap's clone
 * (the bridge needs only the sandbox's network), the gate's `ready` once every mount is made
 * (the tmpfs inodes are capped then). Resolves to the bridge, if one was started. The gate's
 * pipe is always ended, `go` or not: an open pipe keeps the child's 'close' (and the call)
 * waiting, and an end of input tells a gate that outlived a kill to run nothing; `go` only
 * while the launcher lives and nothing killed it (checked after the last await).
 */
async function openGate(
  child: ChildProcess,
  socket: string | undefined,
  killed: () => boolean,
): Promise<ChildProcess | undefined> {
  const toRemount = extraFd(child, REMOUNT_PID_FD) as Writable;
  // Listened to from here on, before any await (remountStatus says why).
  const status = remountStatus(extraFd(child, REMOUNT_STATUS_FD) as Readable);
  const ready = sandboxReady(extraFd(child, READY_FD) as Readable);
  const pid = await sandboxPid(extraFd(child, INFO_FD) as Readable);
  const bridge = pid === undefined || socket === undefined ? undefined : startBridge(pid, socket);
  const capped = ready.then((isReady) => {
    if (pid === undefined || !isReady) {
      // No sandbox: the waiting helper reads the end of its input and exits.
      toRemount.end();
      return false;
    }
    return capTmpfsInodes(toRemount, status, pid);
  });
  const [, started] = await Promise.all([capped, bridge]);
  const go =
    pid !== undefined &&
    (await ready) &&
    child.exitCode === null &&
    child.signalCode === null &&
    !killed();
  (extraFd(child, BLOCK_FD) as Writable).end(go ? 'go\n' : undefined);
  return started;
}

/** The sandbox's descriptors, closed in the helper: the host reads `info` to its end. */
const SANDBOX_FDS = `${SECCOMP_FD}<&- ${INFO_FD}>&- ${BLOCK_FD}<&- ${READY_FD}>&-`;

/**
 * The launching shell's script. Its arguments: the remount helper's (`helperArgs` of them, none
 * where it cannot work here), then the command line of bubblewrap (or of the host-user helper
 * that starts it). The helper starts first, in the background, outside the command's cgroup and
 * ulimits (it is the host's, not the command's) but in the launcher's process group, so a kill
 * of the group on abort, timeout or exit takes it too; it waits on its stdin for the sandbox's
 * pid. The shell closes the helper's descriptors, joins the cgroups and becomes bubblewrap.
 * `helperInCommand`: the command (the host-user helper) starts the remount helper itself and
 * takes its descriptors.
 */
export function launcherScript(
  prelude: string,
  helperArgs: number,
  helperInCommand = false,
): string {
  const fds = `${REMOUNT_PID_FD}<&- ${REMOUNT_STATUS_FD}>&-`;
  if (helperInCommand) return `${prelude}exec "$@"`;
  const helper =
    helperArgs === 0
      ? ''
      : `perl ${Array.from({ length: helperArgs }, (_, i) => `"\${${i + 1}}"`).join(' ')} ` +
        `<&${REMOUNT_PID_FD} >&${REMOUNT_STATUS_FD} 2>/dev/null ${fds} ${SANDBOX_FDS} & shift ${helperArgs}; `;
  return `${helper}exec ${fds}; ${prelude}exec "$@"`;
}

/**
 * Under an unprivileged host user, root's files outside the writable folders show as owned by
 * nobody, and git refuses a repository it does not own (a linked worktree's git directory, a
 * read-only checkout). That check guards against another user's repository config running
 * commands; here every command runs inside the sandbox anyway, so git is told to trust them
 * (command-scope config, which git honours for safe.directory).
 */
function trustRepositories(env: Record<string, string>): Record<string, string> {
  const index = Number(env.GIT_CONFIG_COUNT ?? '0');
  const at = Number.isSafeInteger(index) && index >= 0 ? index : 0;
  return {
    ...env,
    GIT_CONFIG_COUNT: String(at + 1),
    [`GIT_CONFIG_KEY_${at}`]: 'safe.directory',
    [`GIT_CONFIG_VALUE_${at}`]: '*',
  };
}

function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return mib >= 1024 && mib % 1024 === 0 ? `${mib / 1024} GiB` : `${Math.round(mib)} MiB`;
}

/** The pipe of a child's file descriptor past stderr (Node types only the first five). */
function extraFd(child: ChildProcess, fd: number): Readable | Writable {
  const stream = (child.stdio as unknown as Array<Readable | Writable | null>)[fd];
  if (stream === null || stream === undefined) throw new Error(`no pipe on fd ${fd}`);
  return stream;
}

function spawnHost(options: RunOptions): ChildProcess {
  return childProcess().spawn('/bin/sh', ['-c', options.command], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so the group can be killed as a whole (setsid escapes it: only
    // the sandbox's pid namespace catches those).
    detached: true,
  });
}

function deniedPaths(paths: readonly string[]): SandboxPaths['denied'] {
  const denied: Array<{ path: string; kind: 'dir' | 'file' }> = [];
  for (const path of paths) {
    if (!existsSync(path)) continue;
    try {
      denied.push({ path, kind: statSync(path).isDirectory() ? 'dir' : 'file' });
    } catch {
      // Unreadable to us too: nothing to hide.
    }
  }
  return denied;
}

/** Streams kept to their last `max` characters, with how much was cut. */
class Tail {
  private text = '';
  private dropped = 0;
  constructor(private readonly max: number) {}
  push(chunk: string): void {
    this.text += chunk;
    if (this.text.length > this.max * 2) this.trim();
  }
  private trim(): void {
    if (this.text.length <= this.max) return;
    this.dropped += this.text.length - this.max;
    this.text = this.text.slice(this.text.length - this.max);
  }
  value(): string {
    this.trim();
    return this.dropped === 0
      ? this.text
      : `[output truncated: the first ${this.dropped.toLocaleString('en-US')} characters were cut; only the last ${this.max.toLocaleString('en-US')} are kept]\n${this.text}`;
  }
}

/** Whether a timeout or an abort has killed a child's tree (before its 'exit' arrives). */
interface Kills {
  happened: boolean;
}

/** Kills the child's process group (the sandbox, or the host command and what it started). */
function killTree(child: ChildProcess, kills?: Kills): void {
  if (kills !== undefined) kills.happened = true;
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

function collect(child: ChildProcess, options: RunOptions, kills?: Kills): Promise<ShellResult> {
  const stdout = new Tail(options.maxOutputChars);
  const stderr = new Tail(options.maxOutputChars);
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => stdout.push(chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killTree(child, kills);
  }, options.timeoutMs);
  const onAbort = () => killTree(child, kills);
  options.signal.addEventListener('abort', onAbort, { once: true });
  // Aborted during the setup before the spawn (the placeholders, the proxy): no 'abort' event
  // comes any more, so the tree goes now, before bubblewrap is told to go.
  if (options.signal.aborted) killTree(child, kills);
  return new Promise((resolve, reject) => {
    child.on('error', (error) => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      reject(error);
    });
    // When the command exits, whatever it left in its group goes too (host mode; in the sandbox
    // its pid namespace is gone with it already), so the pipes close and 'close' follows.
    child.on('exit', () => killTree(child));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      resolve({
        exitCode: code ?? (signal !== null ? 128 + signalNumber(signal) : null),
        stdout: stdout.value(),
        stderr: stderr.value(),
        timedOut,
      });
    });
  });
}

function signalNumber(signal: NodeJS.Signals): number {
  return ({ SIGKILL: 9, SIGTERM: 15, SIGINT: 2 } as Record<string, number>)[signal] ?? 0;
}
