/**
 * Runs `agate` as a child process the way a person does (any entry point: `pnpm agate`, the
 * repository's bin, an installed bin, on any Node binary), recording every module it loads, so
 * tests can check what ran and how many copies of @agate/core it loaded.
 */
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { type AgentLayout, LAYOUT_EXPECTED } from './agent-layouts.js';

const RECORDER = fileURLToPath(new URL('./record-modules.mjs', import.meta.url));
const CORE_ENTRY = /\/core\/(src|dist)\/index\.[jt]s$/;

export interface AgateOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Every module URL the processes resolved (recorded through NODE_OPTIONS; [] when not). */
  modules: string[];
  /** Each URL whose source the processes read, once per read (recorded with `modules`). */
  loads: string[];
}

/** No provider, key, npm or vitest setting of the machine running the tests. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(VITEST|NODE_OPTIONS$|npm_|PNPM_|AGATE_|OPENAI_API_KEY$|TEST$|NODE_ENV$)/i.test(key)) {
      continue;
    }
    env[key] = value;
  }
  return { ...env, NO_COLOR: '1', ...extra };
}

let runs = 0;

/** `command ...args` in `cwd`; `scratch` is a folder for the module record. */
export function runAgate(
  command: string,
  args: readonly string[],
  options: {
    cwd: string;
    scratch: string;
    env?: Record<string, string>;
    /** Record the modules loaded (through NODE_OPTIONS); default true. */
    record?: boolean;
  },
): Promise<AgateOutcome> {
  const record = join(options.scratch, `modules-${process.pid}-${runs++}.txt`);
  const recorder: Record<string, string> =
    options.record === false
      ? {}
      : {
          AGATE_RECORD_MODULES: record,
          AGATE_RECORD_LOADS: `${record}.loads`,
          NODE_OPTIONS: `--import=${RECORDER}`,
        };
  const child = spawn(command, [...args], {
    cwd: options.cwd,
    env: childEnv({ ...options.env, ...recorder }),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const lines = (file: string) => {
        try {
          return readFileSync(file, 'utf8').split('\n');
        } catch {
          return []; // The process died before its exit handler: nothing to report.
        }
      };
      resolve({ code, stdout, stderr, modules: lines(record), loads: lines(`${record}.loads`) });
    });
  });
}

/** `items` through `each`, `limit` at a time (each is a whole Node process); results in order. */
export async function inTurn<T, R>(
  items: readonly T[],
  limit: number,
  each: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await each(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

/** The `@agate/core` entry modules a run loaded (one per copy). */
export function coreCopies(outcome: AgateOutcome): string[] {
  return [...new Set(outcome.modules.filter((url) => CORE_ENTRY.test(url)))];
}

/**
 * What every layout's run must show: the gate's refusal, completion, one core, no noise. A
 * built core (`dist/`, what an installed CLI runs) is also read once: a CommonJS agent's
 * `require('@agate/core')` passes it through the module hooks again, where tsx would go over
 * its bundle a second time (a third of a small run's CPU) if the CLI did not keep tsx off it.
 */
export function expectLayoutRan(outcome: AgateOutcome, layout: AgentLayout): void {
  const context = `${layout.name}\n${outcome.stdout}\n${outcome.stderr}`;
  expect(outcome.code, context).toBe(0);
  for (const pattern of LAYOUT_EXPECTED) expect(outcome.stdout, context).toMatch(pattern);
  expect(outcome.stderr, context).toBe('');
  const copies = coreCopies(outcome);
  expect(copies, context).toHaveLength(1);
  if (copies[0]?.endsWith('.js') === true && outcome.loads.length > 0) {
    expect(
      outcome.loads.filter((url) => url === copies[0]),
      context,
    ).toHaveLength(1);
  }
}

/** The oldest Node `engines` allows (`^22.22.3 || …` → `22.22.3`), and the release before it. */
export function enginesFloor(engines: string): { floor: string; before: string } {
  const [major, minor, patch] = (/\^(\d+)\.(\d+)\.(\d+)/.exec(engines) ?? []).slice(1).map(Number);
  if (major === undefined || minor === undefined || patch === undefined || patch < 1) {
    throw new Error(`engines.node "${engines}" does not start with ^MAJOR.MINOR.PATCH (PATCH > 0)`);
  }
  return { floor: `${major}.${minor}.${patch}`, before: `${major}.${minor}.${patch - 1}` };
}

/**
 * The path of a Node binary of exactly `version`, fetched from the npm registry through npx
 * like the rest of the toolchain (cached after the first time); undefined when it cannot be.
 * Each npx start is a whole npm CLI (about a second of CPU, three on a busy machine), so a
 * version is asked once per process, and one npx already installed is taken from its cache.
 */
export function nodeBinary(version: string): string | undefined {
  if (!binaries.has(version))
    binaries.set(version, cachedNodeBinary(version) ?? npxNodeBinary(version));
  return binaries.get(version);
}

const binaries = new Map<string, string | undefined>();

function npxNodeBinary(version: string): string | undefined {
  const found = spawnSync(
    'npx',
    ['-y', '-p', `node@${version}`, '-c', 'node -p process.execPath'],
    { encoding: 'utf8', env: childEnv(), timeout: 240_000 },
  );
  const path = found.stdout.trim().split('\n').at(-1) ?? '';
  return found.status === 0 && path.startsWith('/') ? path : undefined;
}

/**
 * The binary an earlier `npx -p node@<version>` installed: npx keeps each package set in
 * `<npm cache>/_npx/<hash>/node_modules`, where the `node` package holds `bin/node`. Only an
 * exact version whose binary is there and executable; anything else asks npx.
 */
export function cachedNodeBinary(
  version: string,
  cache = process.env.npm_config_cache || join(homedir(), '.npm'),
): string | undefined {
  let sets: string[];
  try {
    sets = readdirSync(join(cache, '_npx'));
  } catch {
    return undefined;
  }
  for (const set of sets.sort()) {
    const dir = join(cache, '_npx', set, 'node_modules', 'node');
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        version?: unknown;
      };
      if (manifest.version !== version) continue;
      const binary = join(dir, 'bin', 'node');
      accessSync(binary, constants.X_OK);
      return binary;
    } catch {
      // Not a node install, or a half-written one: the next, or npx.
    }
  }
  return undefined;
}
