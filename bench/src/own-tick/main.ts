/**
 * The own-tick row alone: `pnpm --filter @agate/bench bench:own-tick [--quick]` (after
 * `pnpm build`: it measures Agate's built `dist/`). Prints the target row and its section as
 * `pnpm bench` writes them into docs/performance.md; writes nothing.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runChildProcess } from '../child-process.js';
import type { OwnTickOptions, OwnTickResult } from './measure.js';
import { ownTickRow, ownTickSection } from './report.js';

/** What `pnpm bench` measures (`--quick`: a smoke run). */
export function ownTickOptions(quick: boolean): Omit<OwnTickOptions, 'log'> {
  return {
    ticks: 10,
    tools: 21,
    reps: quick ? 3 : 6,
    inner: quick ? 10 : 100,
    warmup: quick ? 20 : 100,
    profileRuns: quick ? 100 : 1_000,
  };
}

/** Runs the measurement in its own child process (own-tick/child.ts taps the SDK calls first). */
export function measureOwnTickInChild(
  options: Omit<OwnTickOptions, 'log'>,
): Promise<OwnTickResult> {
  return runChildProcess<OwnTickResult>(
    join(dirname(fileURLToPath(import.meta.url)), 'child.ts'),
    { kind: 'own-tick', ...options },
    { NODE_ENV: 'production' },
    ['--expose-gc'],
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await measureOwnTickInChild(ownTickOptions(process.argv.includes('--quick')));
  const row = ownTickRow(result);
  process.stdout.write(
    [
      '| target | goal | measured (median) | spread | |',
      '| --- | ---: | ---: | ---: | --- |',
      `| ${row.what} | ${row.target} | ${row.measured} | ${row.spread} | ${row.verdict} |`,
      '',
      ...ownTickSection(result),
    ].join('\n'),
  );
}
