import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './machine.js';
import { type Summary, summarize } from './stats.js';

export interface ColdStartResult {
  reps: number;
  /** From spawning `agate run` on the demo to its first tick line, ms. */
  firstTick: Summary;
  /** Node alone (`node -e ''`), for scale. */
  node: Summary;
}

export const COLD_START_TARGET_MS = 1_000;

const BIN = join(REPO_ROOT, 'packages', 'cli', 'bin', 'agate.js');
const DEMO_DIR = join(REPO_ROOT, 'examples', 'file-agent');

/** Wall time until `pattern` appears on stdout (the process is then killed). */
function timeUntil(args: string[], cwd: string, pattern: RegExp | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, {
      cwd,
      env: { ...process.env, NO_COLOR: '1', NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    let done = false;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!done && pattern?.test(out)) {
        done = true;
        resolve(performance.now() - started);
        child.kill('SIGKILL');
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (done) return;
      if (pattern === undefined && code === 0) resolve(performance.now() - started);
      else
        reject(
          new Error(`agate run ended (code ${code}) before its first tick: ${out.slice(-500)}`),
        );
    });
  });
}

/**
 * `agate run` on the demo, piped (plain lines: Ink is never loaded), from process start to the
 * first tick's line, as a user starts it: the repository's bin, which loads the TypeScript
 * sources through tsx (an installed package runs its built `dist/` instead). Node's own start,
 * measured alternately, gives the scale.
 */
export async function measureColdStart(reps: number): Promise<ColdStartResult> {
  const first: number[] = [];
  const node: number[] = [];
  const args = [BIN, 'run', 'src/demo.tsx', '--plain'];
  await timeUntil(args, DEMO_DIR, /tick 1/); // warm the OS file cache once
  for (let i = 0; i < reps; i++) {
    first.push(await timeUntil(args, DEMO_DIR, /tick 1/));
    node.push(await timeUntil(['-e', ''], DEMO_DIR, undefined));
  }
  return { reps, firstTick: summarize(first), node: summarize(node) };
}
