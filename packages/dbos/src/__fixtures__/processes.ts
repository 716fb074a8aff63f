import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
// By path: a test fixture of @agate/core's, not part of its package.
import { scriptArgs } from '../../../core/src/__fixtures__/bundled-script.js';

const SCRIPT = fileURLToPath(new URL('./worker-process.ts', import.meta.url));
/** The kill matrix's worker (matrix-worker.ts). */
export const MATRIX_WORKER = fileURLToPath(new URL('./matrix-worker.ts', import.meta.url));
/**
 * The worker scripts bundled once (bundled-script.ts): no tsx transform at each start, which
 * cost a worker 2-3 s of CPU. packages/dbos: tsx is its devDependency (the sources through
 * tsx, AGATE_TEST_SOURCE_CLI=1).
 */
const STARTS = new Map([
  [SCRIPT, await scriptArgs(SCRIPT)],
  [MATRIX_WORKER, await scriptArgs(MATRIX_WORKER)],
]);
const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));

export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Resolves when the worker takes runs; rejects if it exits first. */
  readonly ready: Promise<void>;
  readonly exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): void;
}

/**
 * Starts a worker in its own Node process (the fixture agent, configured by `env`; `script`
 * another worker script). `onLine` hears each line the worker prints.
 */
export function startWorkerProcess(
  env: Record<string, string>,
  options: { script?: string; onLine?: (line: string) => void } = {},
): WorkerProcess {
  const script = options.script ?? SCRIPT;
  const args = STARTS.get(script);
  if (args === undefined) throw new Error(`not a worker script of these tests: ${script}`);
  const child = spawn(process.execPath, args, {
    cwd: PACKAGE_DIR,
    env: { ...process.env, ...env, NODE_NO_WARNINGS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    // Set to see the workers' own output while a test runs.
    if (process.env.AGATE_TEST_WORKER_OUTPUT) process.stderr.write(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let pending = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const complete = pending.split('\n');
      pending = complete.pop() ?? '';
      for (const line of complete) {
        if (line === 'ready') resolve();
        options.onLine?.(line);
      }
    });
    void exited.then((code) =>
      reject(new Error(`worker exited (${String(code)}) before it was ready:\n${stderr}`)),
    );
  });
  ready.catch(() => {});
  return {
    child,
    pid: child.pid as number,
    ready,
    exited,
    kill: (signal) => {
      child.kill(signal);
    },
  };
}

export function lines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
  } catch {
    return [];
  }
}

export interface Span {
  callId: string;
  run: string;
  pid: number;
  start: number;
  end: number;
}

/**
 * Tool executions from `spans.log`: a start without an end belongs to a killed process, and
 * lasted until that process died (`killedAt`).
 */
export function spans(file: string, killedAt: ReadonlyMap<number, number>): Span[] {
  const open = new Map<string, Span>();
  const done: Span[] = [];
  for (const line of lines(file)) {
    const [kind, callId = '', pid = '0', at = '0'] = line.split(' ');
    const key = `${callId} ${pid}`;
    if (kind === 'start') {
      open.set(key, {
        callId,
        run: callId.replace(/-c\d+$/, ''),
        pid: Number(pid),
        start: Number(at),
        end: Number.POSITIVE_INFINITY,
      });
    } else {
      const span = open.get(key);
      if (span !== undefined) {
        span.end = Number(at);
        done.push(span);
        open.delete(key);
      }
    }
  }
  for (const span of open.values()) {
    done.push({ ...span, end: killedAt.get(span.pid) ?? Number.POSITIVE_INFINITY });
  }
  return done;
}

/** Pairs of one run's tool executions in two processes whose times overlap. */
export function overlaps(all: readonly Span[]): string[] {
  const found: string[] = [];
  for (const a of all) {
    for (const b of all) {
      if (a.run !== b.run || a.pid >= b.pid) continue;
      if (a.start < b.end && b.start < a.end) {
        found.push(`${a.callId}@${a.pid} and ${b.callId}@${b.pid}`);
      }
    }
  }
  return found;
}
