import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installDemo } from './installed-cli.js';
import { REPO_ROOT } from './machine.js';
import { median, type Summary, summarize } from './stats.js';

export interface ColdStartResult {
  reps: number;
  /**
   * The installed bin: from spawning `node_modules/.bin/agate run src/demo.tsx --plain` in a
   * project where the packed packages are installed (built `dist/` JavaScript; the demo's own
   * TypeScript loads through the CLI's tsx) to its first tick line, ms. What the target is on.
   */
  firstTick: Summary;
  /** The same run with the repository's bin (the TypeScript sources through tsx), ms. */
  repository: Summary;
  /** Node alone (`node -e ''`), for scale. */
  node: Summary;
  /** `node --input-type=module -e "await import('@agate/core')"` in the installed project, ms. */
  importCore?: Summary;
  /** The same for `ai`, alternating with it. */
  importAi?: Summary;
  /** Node alone, the same way (`await import('node:path')`), alternating with them. */
  importNode?: Summary;
  /** `@agate/core`'s import / `ai`'s, the median of each block of `IMPORT_BLOCK` pairs. */
  importRatio?: Summary;
}

export const COLD_START_TARGET_MS = 1_000;
/** `import('@agate/core')` within this much of `import('ai')` (issue 42). */
export const IMPORT_RATIO_TARGET = 1.3;
/** Alternating import timings per block; the verdict is on the blocks' median ratios. */
export const IMPORT_BLOCK = 5;

const REPO_BIN = join(REPO_ROOT, 'packages', 'cli', 'bin', 'agate.js');
const REPO_DEMO_DIR = join(REPO_ROOT, 'examples', 'file-agent');
const TICK_1 = /tick 1/;

/** Wall time from spawning `command` until `pattern` appears on stdout (the process is then killed). */
function timeUntil(
  command: string,
  args: string[],
  cwd: string,
  pattern: RegExp | undefined,
  scratch?: string,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      cwd,
      env: {
        ...process.env,
        NO_COLOR: '1',
        NODE_ENV: 'production',
        // The demo removes its temp workspace at exit, which a SIGKILL never reaches: the killed
        // runs make theirs in the bench's own folder, removed once at the end.
        ...(scratch === undefined ? {} : { TMPDIR: scratch }),
      },
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
      else if (pattern === undefined)
        reject(
          new Error(`${command} ${args.join(' ')} exited with code ${code}: ${out.slice(-500)}`),
        );
      else
        reject(
          new Error(`agate run ended (code ${code}) before its first tick: ${out.slice(-500)}`),
        );
    });
  });
}

/**
 * `agate run src/demo.tsx --plain` with stdout piped, from process start to the first tick's
 * line, as a user starts it: the bin of the installed CLI (the packages packed and installed
 * once, before the repetitions, in a temporary project holding the demo; see installed-cli.ts).
 * Alternating with it: the same run with the repository's bin (TypeScript sources through tsx,
 * informational) and Node's own start, for scale.
 */
export async function measureColdStart(reps: number): Promise<ColdStartResult> {
  const installed = installDemo();
  const scratch = mkdtempSync(join(tmpdir(), 'agate-bench-cold-'));
  try {
    const first: number[] = [];
    const repository: number[] = [];
    const node: number[] = [];
    // Once each to the end first: the demo must complete there (exit code 0), not only start
    // its first tick; and the OS file cache, tsx's transform cache and Node's compile cache are
    // then warm, as for a user's second run.
    const args = ['run', 'src/demo.tsx', '--plain'];
    await timeUntil(installed.bin, args, installed.dir, undefined);
    await timeUntil(process.execPath, [REPO_BIN, ...args], REPO_DEMO_DIR, undefined);
    for (let i = 0; i < reps; i++) {
      first.push(await timeUntil(installed.bin, args, installed.dir, TICK_1, scratch));
      repository.push(
        await timeUntil(process.execPath, [REPO_BIN, ...args], REPO_DEMO_DIR, TICK_1, scratch),
      );
      node.push(await timeUntil(process.execPath, ['-e', ''], installed.dir, undefined));
    }
    return {
      reps,
      firstTick: summarize(first),
      repository: summarize(repository),
      node: summarize(node),
      ...(await measureImports(installed.dir, reps)),
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    installed.remove();
  }
}

/** Wall time of a Node process that imports `specifiers` as ES modules and exits, ms. */
export function importTime(specifiers: readonly string[], cwd: string): Promise<number> {
  const script = specifiers.map((s) => `await import(${JSON.stringify(s)});`).join('\n');
  return timeUntil(process.execPath, ['--input-type=module', '-e', script], cwd, undefined);
}

/**
 * `import('@agate/core')` against `import('ai')` and Node's own start, from the installed
 * project (the packed `dist/` JavaScript, core's bundled as its build makes it: as a user's
 * project loads it), in rotating order, after one untimed import of each (the OS file cache and
 * Node's compile cache warm).
 */
async function measureImports(
  dir: string,
  blocks: number,
): Promise<Pick<ColdStartResult, 'importCore' | 'importAi' | 'importNode' | 'importRatio'>> {
  const specifiers = ['@agate/core', 'ai', 'node:path'] as const;
  for (const specifier of specifiers) await importTime([specifier], dir);
  const times: Record<(typeof specifiers)[number], number[]> = {
    '@agate/core': [],
    ai: [],
    'node:path': [],
  };
  const ratios: number[] = [];
  for (let block = 0; block < blocks; block++) {
    const pairs: number[] = [];
    for (let i = 0; i < IMPORT_BLOCK; i++) {
      const shift = (block * IMPORT_BLOCK + i) % specifiers.length;
      const order = specifiers.map((_, k) => specifiers[(k + shift) % specifiers.length]!);
      const round: Partial<Record<(typeof specifiers)[number], number>> = {};
      for (const specifier of order) round[specifier] = await importTime([specifier], dir);
      for (const specifier of specifiers) times[specifier].push(round[specifier]!);
      pairs.push(round['@agate/core']! / round.ai!);
    }
    ratios.push(median(pairs));
  }
  return {
    importCore: summarize(times['@agate/core']),
    importAi: summarize(times.ai),
    importNode: summarize(times['node:path']),
    importRatio: summarize(ratios),
  };
}
