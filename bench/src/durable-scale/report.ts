import { ms } from '../stats.js';
import { judge, judgeAtLeast, type Verdict } from '../verdict.js';
import { MODEL_MS, TOOL_TICKS } from './agent.js';
import {
  type DurableScaleResult,
  SCALE_TARGETS,
  TICK_COST_TARGETS,
  type WorkersResult,
} from './measure.js';

export interface ScaleRow {
  what: string;
  target: string;
  measured: string;
  spread: string;
  verdict: Verdict;
}

const one = (v: number) => ({ median: v, min: v, max: v, p95: v, samples: 1 });
const x = (v: number) => `${v.toFixed(2)}×`;
const cores = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : '—');

/** Throughput of `workers` over one worker's, if both were measured. */
function speedUp(result: DurableScaleResult, workers: number): number | undefined {
  const base = result.configs.find((c) => c.workers === 1 && c.concurrency === result.concurrency);
  const other = result.configs.find(
    (c) => c.workers === workers && c.concurrency === result.concurrency,
  );
  return base && other ? other.runsPerSec / base.runsPerSec : undefined;
}

/** Why a throughput target is out of reach here, from what the machine was busy with. */
function why(result: DurableScaleResult, workers: number): string {
  const c = result.configs.find(
    (r) => r.workers === workers && r.concurrency === result.concurrency,
  );
  if (c === undefined) return '';
  return ` With ${workers} workers the machine was busy ${cores(c.machineCores)} of its ${result.cores} cores (PostgreSQL ${cores(c.postgresCores)}, the workers ${cores(c.workerCores)}): the work is CPU-bound, so more processes only share the same cores.`;
}

/** The targets of issue 38 §4, judged on the one measurement each configuration makes. */
export function durableScaleRows(result: DurableScaleResult | undefined): ScaleRow[] {
  if (result === undefined || result.skipped !== undefined) {
    const because = result?.skipped ?? 'not run';
    return [
      {
        what: 'Durable runs on one PostgreSQL: throughput with 1, 2 and 4 worker processes, and recovery after half of them are killed',
        target: `≥ ${SCALE_TARGETS.twoWorkers}× / ≥ ${SCALE_TARGETS.fourWorkers}×`,
        measured: `— (${because})`,
        spread: '—',
        verdict: 'not measured',
      },
    ];
  }
  const rows: ScaleRow[] = tickCostRows(result);
  const setup = `${result.runs.toLocaleString('en-US')} runs of ${result.ticksPerRun} ticks (a ${MODEL_MS} ms model, ${TOOL_TICKS} tool calls), ${result.concurrency} at once per worker, private PostgreSQL with fsync on, one measurement each`;
  for (const [workers, floor] of [
    [2, SCALE_TARGETS.twoWorkers],
    [4, SCALE_TARGETS.fourWorkers],
  ] as const) {
    const ratio = speedUp(result, workers);
    const verdict = ratio === undefined ? 'not measured' : judgeAtLeast(one(ratio), floor);
    rows.push({
      what: `\`@agate/dbos\`: runs/s with ${workers} worker processes / with 1 (${setup})`,
      target: `≥ ${floor}×`,
      measured:
        ratio === undefined
          ? '—'
          : `${x(ratio)}${verdict === 'missed' ? `.${why(result, workers)}` : ''}`,
      spread: ratio === undefined ? '—' : x(ratio),
      verdict,
    });
  }
  const kill = result.kill;
  const limit = (kill?.recoveryAfterMs ?? 0) + SCALE_TARGETS.recoveryExtraMs;
  rows.push({
    what: kill
      ? `\`@agate/dbos\`: ${kill.killed} of ${kill.workers} workers SIGKILLed when half of ${kill.runs.toLocaleString('en-US')} runs had ended: from the kill until the last of the ${kill.orphaned} runs they held went on at a survivor (its first step recorded there, or its end for a run whose steps had all been recorded before the kill; recoveryAfterMs ${kill.recoveryAfterMs.toLocaleString('en-US')} ms)`
      : '`@agate/dbos`: recovery after half the workers are killed',
    target: `< ${ms(limit)}; every run completes`,
    measured: kill
      ? `${ms(kill.resumedMs)} (the last of them ended ${ms(kill.recoveryMs)} after the kill); ${kill.completed} of ${kill.runs} completed; ${kill.repeatedCalls} tool calls ran twice (at most ${kill.orphaned} were in flight)`
      : '—',
    spread: kill ? ms(kill.resumedMs) : '—',
    verdict:
      kill === undefined
        ? 'not measured'
        : kill.completed !== kill.runs || kill.repeatedCalls > kill.orphaned
          ? 'missed'
          : judge(one(kill.resumedMs), limit - 1e-9),
  });
  return rows;
}

/**
 * What one durable tick costs, judged over every configuration measured (each is a whole
 * measurement: the spread is across configurations, which differ in workers and runs at once).
 */
function tickCostRows(result: DurableScaleResult): ScaleRow[] {
  const spreadOf = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
    return {
      median,
      min: sorted[0] ?? Number.NaN,
      max: sorted.at(-1) ?? Number.NaN,
      p95: sorted.at(-1) ?? Number.NaN,
      samples: sorted.length,
    };
  };
  const what = (measure: string) =>
    `\`@agate/dbos\`: ${measure} per durable tick (a model step, its tool step and the save), over the whole measurement of each configuration (${result.configs.length})`;
  const row = (measure: string, values: number[], target: number, unit: string, digits: number) => {
    const spread = spreadOf(values);
    return {
      what: what(measure),
      target: `≤ ${target}${unit}`,
      measured: `${spread.median.toFixed(digits)}${unit}`,
      spread: `${spread.min.toFixed(digits)}–${spread.max.toFixed(digits)}${unit}`,
      verdict: values.length === 0 ? ('not measured' as const) : judge(spread, target),
    };
  };
  return [
    row(
      'PostgreSQL transactions (reads included)',
      result.configs.map((c) => c.commitsPerTick),
      TICK_COST_TARGETS.transactions,
      '',
      1,
    ),
    row(
      'PostgreSQL CPU',
      result.configs.map((c) => c.postgresCpuMsPerTick),
      TICK_COST_TARGETS.postgresCpuMs,
      ' ms',
      2,
    ),
    row(
      'worker CPU',
      result.configs.map((c) => c.workerCpuMsPerTick),
      TICK_COST_TARGETS.workerCpuMs,
      ' ms',
      2,
    ),
  ];
}

/** The section: one row per worker count, what PostgreSQL took, and the kill. */
export function renderDurableScale(result: DurableScaleResult | undefined): string[] {
  const out: string[] = ['## Durable runs: workers on one PostgreSQL', ''];
  if (result === undefined || result.skipped !== undefined) {
    out.push(`Not measured: ${result?.skipped ?? 'not run'}.`, '');
    return out;
  }
  out.push(
    `${result.runs.toLocaleString('en-US')} durable runs (\`@agate/dbos\`) enqueued while no worker runs, then W worker ` +
      `processes started together on one private PostgreSQL ${'(fsync on)'}, each taking ${result.concurrency} runs at once. A run: ` +
      `${result.ticksPerRun} ticks, each a ${MODEL_MS} ms model call, the first ${TOOL_TICKS} with a tool call, the last answering. ` +
      'runs/s and ticks/s between the 10th and 90th percentile of completions (the steady part, without start-up and tail); ' +
      "a tick's latency from its model step's start to the next tick's, as the runs recorded them (`agate_dbos.steps`); writes per tick over the whole " +
      'measurement from `pg_stat_database` (commits, rows inserted + updated + deleted) and WAL bytes from `pg_current_wal_lsn()`; ' +
      'CPU in cores used over the wall time, from /proc (PostgreSQL: the postmaster and every backend).',
    '',
    '| workers × runs at once | runs/s | ticks/s | tick p50 | tick p99 | transactions / tick (reads too) | rows written / tick | WAL / tick | PostgreSQL CPU | workers CPU | machine busy | wall |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const c of result.configs) out.push(configRow(c, result.cores));
  out.push('');
  if (result.configs.some((c) => c.concurrency !== result.concurrency)) {
    out.push(
      'The last row is the control: one worker taking as many runs at once as four workers do together. Where it keeps up with them, the throughput came from more runs at once, not from more processes; where it falls behind, one process was the limit.',
      '',
    );
  }
  const kill = result.kill;
  if (kill) {
    out.push(
      `Kill: ${kill.workers} workers, ${kill.killed} SIGKILLed once half of ${kill.runs.toLocaleString('en-US')} runs had ended, holding ${kill.orphaned} runs. ` +
        `The survivors took them over after recoveryAfterMs (${kill.recoveryAfterMs.toLocaleString('en-US')} ms) of silence: the last of them went on ${ms(kill.resumedMs)} after the kill and ended ${ms(kill.recoveryMs)} after it (its remaining ticks at the loaded machine's tick latency). ` +
        `${kill.completed} of ${kill.runs} runs completed; ${kill.repeatedCalls} tool calls ran twice (only a call in flight at the kill may).`,
      '',
    );
  }
  return out;
}

function configRow(c: WorkersResult, machineCores: number): string {
  return `| ${c.workers} × ${c.concurrency} | ${c.runsPerSec.toFixed(1)} | ${c.ticksPerSec.toFixed(0)} | ${ms(c.tickP50)} | ${ms(c.tickP99)} | ${c.commitsPerTick.toFixed(1)} | ${c.rowsPerTick.toFixed(1)} | ${(c.walBytesPerTick / 1024).toFixed(1)} KiB | ${cores(c.postgresCores)} cores | ${cores(c.workerCores)} cores | ${cores(c.machineCores)} of ${machineCores} | ${(c.wallMs / 1000).toFixed(1)} s |`;
}
