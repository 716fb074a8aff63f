/**
 * Issue 26: `agate run` on the demo with piped output (plain lines) starts without the parts a
 * plain run does not use. The real bin runs in a child process with a module recorder loaded
 * first (`node --import`, Node's in-thread module hooks, which see `import` and `require`);
 * a regression that imports one of these eagerly fails here, not only in the bench row.
 * `agate --version` answers before the program loads at all.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCliBin } from './__fixtures__/built-cli.js';

// The built CLI (__fixtures__/built-cli.ts): no tsx transform at each start.
const BIN = builtCliBin();
const RECORDER = fileURLToPath(new URL('./__fixtures__/record-modules.mjs', import.meta.url));
const DEMO_DIR = fileURLToPath(new URL('../../../examples/file-agent', import.meta.url));

/** What a plain run must not load, each with a pattern over the resolved URLs. */
const NOT_LOADED: Record<string, RegExp> = {
  'ink (the live view)': /\/node_modules\/ink\//,
  'the live view module': /\/view\/(start-)?live-view\.[jt]sx?$/,
  'pg (the Postgres driver)': /\/node_modules\/pg\//,
  '@agate/postgres': /\/postgres\/(src|dist)\/index\.[jt]s$/,
  '@agate/dbos and DBOS': /\/node_modules\/@dbos-inc\/|\/dbos\/(src|dist)\/index\.[jt]s$/,
  'the MCP client and SDK, undici and cross-spawn':
    /\/node_modules\/(@ai-sdk\/mcp|@modelcontextprotocol|undici|cross-spawn)\//,
  'the OpenAI providers (the demo brings its own model)':
    /\/node_modules\/@ai-sdk\/openai(-compatible)?\//,
  'the studio server': /\/studio\/server\.[jt]s$/,
  'the OpenTelemetry SDK (no OTEL_* variable set)': /\/node_modules\/@opentelemetry\/sdk-node\//,
  'the --scripted loader': /\/run\/scripted-file\.[jt]s$/,
  playwright: /\/node_modules\/playwright(-core)?\//,
  'node:http': /^node:https?$/,
  'unbash (read on the first shell command a check classifies)': /\/node_modules\/unbash\//,
};

interface Run {
  modules: string[];
  stdout: string;
  code: number | null;
}

let dir: string;
const runs: Record<string, Run> = {};

/** `agate ...args` in the demo's folder, stdout and stderr piped; resolves when it exits. */
async function recordRun(name: string, args: string[]): Promise<Run> {
  const out = join(dir, `${name}.txt`);
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', AGATE_RECORD_MODULES: out };
  // The demo's own model, whatever the machine running the tests has configured.
  for (const name of ['AGATE_BASE_URL', 'AGATE_MODEL', 'AGATE_API_KEY', 'OPENAI_API_KEY']) {
    delete env[name];
  }
  const child = spawn(process.execPath, ['--import', RECORDER, BIN, ...args], {
    cwd: DEMO_DIR,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.resume();
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  const modules = (await readFile(out, 'utf8')).split('\n');
  return { modules, stdout, code };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agate-lazy-'));
  // One after the other: each is a whole Node process loading the TypeScript sources.
  runs['--plain'] = await recordRun('plain', ['run', 'src/demo.tsx', '--plain']);
  runs.piped = await recordRun('piped', ['run', 'src/demo.tsx']);
  runs['--version'] = await recordRun('version', ['--version']);
}, 120_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe.each(['--plain', 'piped'])('agate run <demo> %s', (name) => {
  it('runs the demo to the end in plain lines', () => {
    const run = runs[name]!;
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toMatch(/tick 1/);
    expect(run.stdout).toMatch(/status: completed/);
  });

  it('the recorder saw the run load its packages, CommonJS included', () => {
    const { modules } = runs[name]!;
    expect(modules.some((url) => url.endsWith('/examples/file-agent/src/demo.tsx'))).toBe(true);
    expect(modules.some((url) => /\/core\/(src|dist)\/index\.[jt]s$/.test(url))).toBe(true);
    // react-reconciler's entry `require`s its build: seen only if require is recorded too.
    expect(modules.some((url) => /\/node_modules\/react-reconciler\/cjs\//.test(url))).toBe(true);
  });

  it('loads none of the live view, Postgres, DBOS, MCP, the providers, studio, unbash or node:http', () => {
    const { modules } = runs[name]!;
    const loaded = Object.entries(NOT_LOADED).flatMap(([what, pattern]) => {
      const hits = modules.filter((url) => pattern.test(url));
      return hits.length > 0 ? [`${what}: ${hits[0]}`] : [];
    });
    expect(loaded).toEqual([]);
  });
});

describe('agate --version', () => {
  it('prints the version before the program loads: no @agate/core, zod, ai or commander', async () => {
    const run = runs['--version']!;
    const { version } = JSON.parse(
      await readFile(new URL('../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${version}\n`);
    const loaded = run.modules.filter((url) =>
      /\/core\/(src|dist)\/|\/node_modules\/(zod|ai|commander)\//.test(url),
    );
    expect(loaded).toEqual([]);
  });
});
