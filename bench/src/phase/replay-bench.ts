import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { ToolCategory } from '@agate/core';
import { type ReplayOptions, type ReplayStep, replayPhaseGates } from '@agate/core/guards';
import { type LevelVerdicts, levelsOf, renderLevelOutcomes } from './level-outcomes.js';

/** One published run, as the fixture files hold it (see bench/fixtures/swe-trajectories/README.md). */
export interface Trajectory {
  id: string;
  agent: string;
  model: string;
  resolved: boolean | null;
  finished: string;
  workProduct?: string[];
  steps: ReplayStep[];
  expected?: { shouldBlock: boolean; unverified: string[] };
}

/** Reads every `*.jsonl.gz` (or `*.jsonl`) in a directory. */
export function loadTrajectories(dir: string): Trajectory[] {
  const runs: Trajectory[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (!/\.jsonl(?:\.gz)?$/.test(name)) continue;
    const raw = readFileSync(join(dir, name));
    const text = name.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
    for (const line of text.split('\n'))
      if (line.trim() !== '') runs.push(JSON.parse(line) as Trajectory);
  }
  return runs;
}

/** Tools that are not calls (a turn without a command, the agent's own submit). */
const NOT_A_TOOL = /^(?:none|submit|finish|exit|stop)$/;

/**
 * This issue's rules: a tool whose calls carry a command (or edit a file by path) is classified
 * per call (`'shell'`); any other tool gets one category from its name.
 */
export function shellTools(run: Trajectory): Record<string, ToolCategory | 'shell'> {
  const perTool = perToolCategories(run);
  const perCall = new Set(
    run.steps
      .filter(
        (s) =>
          typeof s.input === 'object' &&
          s.input !== null &&
          ['command', 'cmd', 'path', 'file_path'].some((k) => k in (s.input as object)),
      )
      .map((s) => s.tool),
  );
  return Object.fromEntries(
    Object.entries(perTool).map(([t, c]) => [t, perCall.has(t) ? 'shell' : c]),
  );
}

/** The seed's per-tool rule: one category per tool, guessed from its name (a shell is `other`). */
export function perToolCategories(run: Trajectory): Record<string, ToolCategory> {
  const guess = (name: string): ToolCategory =>
    /edit|write|replace|patch|apply/i.test(name)
      ? 'patch'
      : /read|view|open|cat/i.test(name)
        ? 'read'
        : /search|grep|find/i.test(name)
          ? 'search'
          : /test/i.test(name)
            ? 'verify'
            : /list|ls|status/i.test(name)
              ? 'discovery'
              : 'other';
  return Object.fromEntries(
    [...new Set(run.steps.map((s) => s.tool))]
      .filter((t) => !NOT_A_TOOL.test(t))
      .map((t) => [t, guess(t)]),
  );
}

export interface RunVerdicts {
  run: Trajectory;
  seed: boolean;
  naive: boolean;
  /** This issue's rules, with the work product when the data has it. */
  refused: boolean;
  /** This issue's rules judged from the calls only (no work product). */
  refusedCallsOnly: boolean;
  unverified: string[];
  unverifiedCallsOnly: string[];
  missing: string[];
  stallWarnings: number;
  stalled: boolean;
  /** This issue's rules at each verification level (with the work product when the data has it). */
  levels: LevelVerdicts;
}

export function judgeRun(run: Trajectory): RunVerdicts {
  const shell = shellTools(run);
  const withProduct: ReplayOptions = {
    tools: shell,
    ...(run.workProduct ? { workProduct: run.workProduct } : {}),
  };
  const ours = replayPhaseGates(run.steps, withProduct);
  const callsOnly = replayPhaseGates(run.steps, { tools: shell });
  const naive = replayPhaseGates(run.steps, { tools: shell, changes: 'every-file-operation' });
  const seed = replayPhaseGates(run.steps, { tools: perToolCategories(run), verification: 'any' });
  const stallWarnings = ours.warnings.filter((w) => w.kind === 'stall').length;
  return {
    run,
    seed: seed.exit.refused,
    naive: naive.exit.refused,
    refused: ours.exit.refused,
    refusedCallsOnly: callsOnly.exit.refused,
    unverified: ours.unverified,
    unverifiedCallsOnly: callsOnly.unverified,
    missing: ours.exit.missing,
    stallWarnings,
    stalled: stallWarnings > 0,
    levels: levelsOf(ours),
  };
}

const pct = (n: number, d: number) => (d === 0 ? '–' : `${((100 * n) / d).toFixed(1)}%`);

function resolvedSplit(
  verdicts: readonly RunVerdicts[],
  signal: (v: RunVerdicts) => boolean,
): string {
  const evaluated = verdicts.filter((v) => v.run.resolved !== null);
  const on = evaluated.filter(signal);
  const off = evaluated.filter((v) => !signal(v));
  const rate = (list: RunVerdicts[]) =>
    `${pct(list.filter((v) => v.run.resolved).length, list.length)} (${list.length})`;
  return `${rate(on)} / ${rate(off)}`;
}

/** A run the agent chose to end (`submit`), not one cut off by a step, cost or time limit. */
export function isFinish(run: Trajectory): boolean {
  const f = run.finished as unknown;
  if (f === true) return true;
  return (
    typeof f === 'string' &&
    f !== '' &&
    !/limit|exceed|error|timeout|cost|format|abort|killed/i.test(f)
  );
}

/** The replay report's sections, each one generated block of docs/phase-gates.md. */
export interface ReplaySections {
  /** Refusal shares under three rules, agreement with the reference, stalls, disagreements. */
  refusals: string;
  /** The verification levels against `resolved` (empty when no run has an outcome label). */
  levels: string;
}

/** The replay report: per model, refusal shares under three rules, agreement, stalls, resolved rates. */
export function renderReplayReport(everything: readonly RunVerdicts[]): string {
  const { refusals, levels } = renderReplaySections(everything);
  return levels === '' ? refusals : `${refusals}\n\n${levels}`;
}

export function renderReplaySections(everything: readonly RunVerdicts[]): ReplaySections {
  const all = everything.filter((v) => isFinish(v.run));
  const skipped = everything.length - all.length;
  const groups = new Map<string, RunVerdicts[]>();
  for (const v of all) {
    const key = `${v.run.agent} · ${v.run.model}`;
    groups.set(key, [...(groups.get(key) ?? []), v]);
  }
  const out: string[] = [
    '#### Share of finishes block mode refuses',
    '',
    ...(skipped > 0
      ? [`(${skipped} runs that did not end by the agent's choice are left out.)`, '']
      : []),
    '| agent · model | runs | per-tool rule (seed) | every file operation (naive) | work product (this) | calls only (no work product) |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const [key, list] of groups) {
    const n = list.length;
    const c = (f: (v: RunVerdicts) => boolean) => `${pct(list.filter(f).length, n)}`;
    out.push(
      `| ${key} | ${n} | ${c((v) => v.seed)} | ${c((v) => v.naive)} | ${c((v) => v.refused)} | ${c((v) => v.refusedCallsOnly)} |`,
    );
  }
  out.push('', '#### Against the reference judgement (`expected.shouldBlock`)', '');
  out.push(
    '| agent · model | unverified finishes refused | verified finishes refused | unverified-change verdict agrees | agrees (calls only) |',
  );
  out.push('| --- | ---: | ---: | ---: | ---: |');
  for (const [key, list] of groups) {
    const judged = list.filter((v) => v.run.expected !== undefined);
    const bad = judged.filter((v) => v.run.expected!.shouldBlock);
    const good = judged.filter((v) => !v.run.expected!.shouldBlock);
    const agree = judged.filter(
      (v) => v.unverified.length > 0 === v.run.expected!.shouldBlock,
    ).length;
    const agreeCalls = judged.filter(
      (v) => v.unverifiedCallsOnly.length > 0 === v.run.expected!.shouldBlock,
    ).length;
    out.push(
      `| ${key} | ${list.length === 0 ? '–' : `${bad.filter((v) => v.refused).length}/${bad.length} (${pct(bad.filter((v) => v.refused).length, bad.length)})`} | ${good.filter((v) => v.refused).length}/${good.length} (${pct(good.filter((v) => v.refused).length, good.length)}) | ${agree}/${judged.length} | ${agreeCalls}/${judged.length} |`,
    );
  }
  const judgedAll = all.filter((v) => v.run.expected !== undefined);
  const badAll = judgedAll.filter((v) => v.run.expected!.shouldBlock);
  const goodAll = judgedAll.filter((v) => !v.run.expected!.shouldBlock);
  if (badAll.length > 0 && goodAll.length > 0) {
    const caught = badAll.filter((v) => v.refused).length / badAll.length;
    const falsely = goodAll.filter((v) => v.refused).length / goodAll.length;
    out.push(
      '',
      `Targets over all ${judgedAll.length} judged runs: unverified finishes refused ≥ 95% — ${(caught * 100).toFixed(1)}% (${caught >= 0.95 ? 'met' : 'NOT met'}); verified finishes refused ≤ 2% — ${(falsely * 100).toFixed(1)}% (${falsely <= 0.02 ? 'met' : 'NOT met'}).`,
    );
  }
  out.push('', '#### Stalls and resolved rates', '');
  out.push(
    'Resolved rate with the signal / without it (runs): a signal that tracks failure has the lower rate on the left.',
    '',
  );
  out.push(
    '| agent · model | stall warnings per run | runs with a stall warning | refused (this rule) | stall warning | unverified change (reference) | never verified after its change |',
  );
  out.push('| --- | ---: | ---: | --- | --- | --- | --- |');
  for (const [key, list] of groups) {
    const perRun = list.reduce((n, v) => n + v.stallWarnings, 0) / list.length;
    out.push(
      `| ${key} | ${perRun.toFixed(2)} | ${pct(list.filter((v) => v.stalled).length, list.length)} | ${resolvedSplit(list, (v) => v.refused)} | ${resolvedSplit(list, (v) => v.stalled)} | ${resolvedSplit(list, (v) => v.run.expected?.shouldBlock === true)} | ${resolvedSplit(list, (v) => v.missing.includes('verification'))} |`,
    );
  }
  const disagreements = all.filter(
    (v) =>
      v.run.expected !== undefined &&
      (v.unverified.length > 0 !== v.run.expected.shouldBlock ||
        v.refused !== v.run.expected.shouldBlock),
  );
  if (disagreements.length > 0) {
    out.push('', '#### Where the verdicts differ from the reference', '');
    for (const v of disagreements) {
      out.push(
        `- ${v.run.id}: reference shouldBlock=${v.run.expected!.shouldBlock}; refused=${v.refused} (missing: ${v.missing.join(', ') || 'nothing'}); unverified: ${v.unverified.join(', ') || 'none'}`,
      );
    }
  }
  const labelled = all.filter((v) => v.run.resolved !== null);
  const levels =
    labelled.length === 0
      ? ''
      : renderLevelOutcomes(
          labelled.map((v) => ({
            id: v.run.id,
            scaffold: v.run.agent,
            resolved: v.run.resolved === true,
            levels: v.levels,
          })),
        );
  return { refusals: out.join('\n'), levels };
}
