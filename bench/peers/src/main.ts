/**
 * The peers bench: Agate, the fastest plain AI SDK loop, LangGraph.js (`createReactAgent`),
 * LangChain (`createAgent`), the OpenAI Agents SDK and Mastra on the same fake model and tools.
 * `pnpm bench:peers` prints a Markdown section; `--write` puts it into docs/performance.md
 * (between its markers, the rest of the file untouched); `--quick` for a smoke run.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runChildProcess } from '../../src/child-process.js';
import { PEERS_SECTION, withSection } from '../../src/docs-section.js';
import { machineInfo, REPO_ROOT } from '../../src/machine.js';
import type { PeersTask } from './child.js';
import { measureColdStart } from './cold-start.js';
import type { ConcurrentResult } from './measure-concurrent.js';
import type { IdleResult } from './measure-idle.js';
import type { StepsResult } from './measure-steps.js';
import { renderPeers } from './report.js';
import { SIDE_IDS } from './side.js';
import { SIDES } from './sides/index.js';
import { installedVersions } from './versions.js';

/** Offline: no framework may phone home (Mastra's usage telemetry, LangSmith tracing). */
const OFFLINE_ENV = { MASTRA_TELEMETRY_DISABLED: '1', LANGSMITH_TRACING: 'false' };
Object.assign(process.env, OFFLINE_ENV);

const args = new Set(process.argv.slice(2));
const quick = args.has('--quick');
const log = (line: string) => process.stderr.write(`${line}\n`);
const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'child.ts');

function runChild<T>(task: PeersTask): Promise<T> {
  return runChildProcess<T>(CHILD, task, { ...OFFLINE_ENV, NODE_ENV: 'production' }, [
    '--expose-gc',
  ]);
}

async function main(): Promise<void> {
  if (process.env.NODE_ENV !== 'production') {
    throw new Error('Run the peers bench with NODE_ENV=production (use `pnpm bench:peers`).');
  }
  const started = performance.now();
  const machine = machineInfo();
  const versions = installedVersions(SIDE_IDS.map((id) => SIDES[id]));

  log('CPU per step, 10-step runs (every side in one child process, interleaved)...');
  const short = await runChild<StepsResult>({
    kind: 'steps',
    steps: 10,
    reps: quick ? 2 : 5,
    inner: quick ? 2 : 20,
    warmup: quick ? 2 : 50,
  });
  log('CPU per step, 200-step runs (every side in one child process, interleaved)...');
  const long = await runChild<StepsResult>({
    kind: 'steps',
    steps: 200,
    reps: quick ? 2 : 5,
    inner: quick ? 1 : 3,
    warmup: quick ? 1 : 2,
  });
  const idle: IdleResult[] = [];
  for (const side of SIDE_IDS) {
    log(`heap per idle session: ${side} (child process)...`);
    idle.push(
      await runChild<IdleResult>({ kind: 'idle', side, sessions: quick ? 10 : 60, steps: 50 }),
    );
  }
  log('runs at once (every side in one child process, taking turns)...');
  const concurrent = await runChild<ConcurrentResult>({
    kind: 'concurrent',
    runs: quick ? 100 : 1_000,
    steps: 10,
    latencyMs: 5,
    reps: quick ? 1 : 3,
  });
  log('import time (child processes)...');
  const coldStart = await measureColdStart(quick ? 3 : 10, log);

  const section = renderPeers({
    machine,
    versions,
    short,
    long,
    idle,
    concurrent,
    coldStart,
    quick,
    elapsedMs: performance.now() - started,
  });
  process.stdout.write(`${section}\n`);
  if (args.has('--write')) {
    const target = join(REPO_ROOT, 'docs', 'performance.md');
    await writeFile(target, withSection(await readFile(target, 'utf8'), PEERS_SECTION, section));
    log(`wrote the peers section of ${target}`);
  }
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
