import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bwrapArgs, type SandboxPaths } from './bwrap-args.js';
import { BRIDGE_SCRIPT, startAllowListProxy } from './net-proxy.js';
import type { SandboxPolicy } from './policy.js';
import { checkSandbox } from './probe.js';
import { processLimit } from './process-limit.js';

/** What a shell call returns to the model. */
export interface ShellResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
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
}

/**
 * Runs one command and resolves when it and everything it started are gone. On timeout or
 * abort the whole tree is killed: inside the sandbox it lives in its own pid namespace, so
 * killing bubblewrap (which dies with its parent and takes the namespace's init with it) ends
 * every process the command started, in the background, with nohup, setsid or a double fork.
 */
export async function runShellCommand(options: RunOptions): Promise<ShellResult> {
  const { policy } = options;
  if (policy === false) return collect(spawnHost(options), options);
  checkSandbox();
  const cleanups: Array<() => void | Promise<void>> = [];
  try {
    const paths: SandboxPaths = { denied: deniedPaths(policy.denyRead) };
    if (policy.network !== false) {
      const dir = mkdtempSync(join(tmpdir(), 'agate-net-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const socket = join(dir, 'proxy.sock');
      const bridge = join(dir, 'bridge.mjs');
      writeFileSync(bridge, BRIDGE_SCRIPT);
      const proxy = await startAllowListProxy(socket, policy.network.allow);
      cleanups.push(() => proxy.close());
      paths.proxy = { socket, bridge, node: process.execPath };
    }
    const limit = processLimit(policy.maxProcesses);
    cleanups.push(() => limit.release());
    const args = bwrapArgs(policy, paths, options.env, options.command);
    const child = spawn(
      '/bin/sh',
      ['-c', `${limit.prelude}exec bwrap "$@"`, 'agate-sandbox', ...args],
      {
        cwd: policy.cwd,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      },
    );
    return await collect(child, options);
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

function spawnHost(options: RunOptions): ChildProcess {
  return spawn('/bin/sh', ['-c', options.command], {
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

function collect(child: ChildProcess, options: RunOptions): Promise<ShellResult> {
  const stdout = new Tail(options.maxOutputChars);
  const stderr = new Tail(options.maxOutputChars);
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => stdout.push(chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
  let timedOut = false;
  const killTree = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killTree();
  }, options.timeoutMs);
  const onAbort = () => killTree();
  options.signal.addEventListener('abort', onAbort, { once: true });
  return new Promise((resolve, reject) => {
    child.on('error', (error) => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      reject(error);
    });
    // When the command exits, whatever it left in its group goes too (host mode; in the sandbox
    // its pid namespace is gone with it already), so the pipes close and 'close' follows.
    child.on('exit', () => killTree());
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
