import { createHash } from 'node:crypto';
import {
  type CheckOutcome,
  type ReplayOptions,
  type ReplayResult,
  replayPhaseGates,
  type VerificationLevel,
  type VerificationLevelMet,
} from '@agate/core/guards';
import { type Estimate, fisherExact, mantelHaenszel, oddsRatio, type Table2x2 } from './odds.js';

/** The levels in order; each asks what the one before it asks, and more. */
export const LEVELS: readonly VerificationLevel[] = [
  'ran',
  'passed',
  'project-tests-once',
  'project-tests',
];

const ORDER: readonly VerificationLevelMet[] = ['none', ...LEVELS];

/** The most a level may cost: the share of resolved runs it refuses (issue 47, item 3). */
export const MAX_REFUSAL_COST = 0.25;

/** One run judged at every verification level. */
export interface LevelVerdicts {
  /** The strictest level the finish meets. */
  met: VerificationLevelMet;
  /** Whether block mode would refuse the finish at each level. */
  refused: Record<VerificationLevel, boolean>;
  /** The last check that ran: its outcome and whose it was (absent: none ran). */
  lastCheck?: { outcome: CheckOutcome; kind: string };
  /** The last check attempted, when it could not run (`'error'`): its label. */
  lastAttemptError?: string;
  /** The project's own tests ran at some point of the run. */
  projectTestsRan: boolean;
}

/**
 * A row of the table: a level, or a rule the bench keeps on record. `'project-tests-if-runnable
 * (rejected)'` — the project's tests asked for only in runs that ran them — was the first rule
 * reasoned out for issue 47; its refusals did not go with unresolved runs, so it is no level.
 */
export interface RefusalRule {
  name: string;
  refused: (v: LevelVerdicts) => boolean;
}

export const RULES: readonly RefusalRule[] = [
  ...LEVELS.map((level) => ({ name: level, refused: (v: LevelVerdicts) => v.refused[level] })),
  {
    name: 'project-tests-if-runnable (rejected)',
    refused: (v) => v.refused.passed || (v.projectTestsRan && v.refused['project-tests']),
  },
];

/**
 * A run's verdict at every level, from one replay at any level: the levels differ only in the
 * verification phase, which holds at a level exactly when the strictest level met includes it
 * (`level-outcomes.test.ts` pins this against a replay at each level).
 */
export function levelsOf(replay: ReplayResult): LevelVerdicts {
  const { understanding, change } = replay.phases;
  const met = replay.level;
  const refused = Object.fromEntries(
    LEVELS.map((level) => [
      level,
      !understanding || !change || ORDER.indexOf(met) < ORDER.indexOf(level),
    ]),
  ) as Record<VerificationLevel, boolean>;
  const attempt = replay.lastAttempt;
  return {
    met,
    refused,
    ...(replay.lastCheck
      ? { lastCheck: { outcome: replay.lastCheck.outcome, kind: replay.lastCheck.kind } }
      : {}),
    ...(attempt?.outcome === 'error' ? { lastAttemptError: attempt.label } : {}),
    projectTestsRan: replay.lastProjectTests !== undefined,
  };
}

/** Replays a run and judges it at each level (the options carry its tools and work product). */
export function judgeLevels(
  steps: Parameters<typeof replayPhaseGates>[0],
  options: ReplayOptions,
): LevelVerdicts {
  return levelsOf(replayPhaseGates(steps, options));
}

/** A run with an outcome label, for the table: its instance, scaffold (the stratum) and verdicts. */
export interface LabelledRun {
  id: string;
  scaffold: string;
  resolved: boolean;
  levels: LevelVerdicts;
}

/**
 * The half a run falls in, from its instance id's SHA-256 (first byte below 128: `'A'`): a split
 * fixed before any number was computed, so a rule can be checked on runs it was not read from.
 */
export function halfOf(id: string): 'A' | 'B' {
  return createHash('sha256').update(id).digest()[0]! < 128 ? 'A' : 'B';
}

/** The 2×2 table of a signal against `resolved`: `a`/`b` with the signal, `c`/`d` without. */
export function tableOf(
  runs: readonly LabelledRun[],
  signal: (r: LabelledRun) => boolean,
): Table2x2 {
  const t = { a: 0, b: 0, c: 0, d: 0 };
  for (const r of runs) {
    if (signal(r)) r.resolved ? t.a++ : t.b++;
    else r.resolved ? t.c++ : t.d++;
  }
  return t;
}

/** What a rule costs and what its refusals say, on one set of runs. */
export interface LevelRow {
  rule: string;
  table: Table2x2;
  /** Resolved runs it refuses, over all resolved runs. */
  refusalCost: number;
  /** Woolf's interval (Haldane–Anscombe ½ when a cell is 0); undefined: it refuses all or none. */
  odds?: Estimate;
  fisherP?: number;
  /** Refusal cost at most {@link MAX_REFUSAL_COST} and the whole interval below 1. */
  meetsTarget: boolean;
}

export function levelRow(runs: readonly LabelledRun[], rule: RefusalRule): LevelRow {
  const table = tableOf(runs, (r) => rule.refused(r.levels));
  const resolved = table.a + table.c;
  const refusalCost = resolved === 0 ? Number.NaN : table.a / resolved;
  const compares = table.a + table.b > 0 && table.c + table.d > 0;
  const odds = compares ? oddsRatio(table) : undefined;
  return {
    rule: rule.name,
    table,
    refusalCost,
    ...(odds ? { odds, fisherP: fisherExact(table) } : {}),
    meetsTarget: odds !== undefined && refusalCost <= MAX_REFUSAL_COST && odds.high < 1,
  };
}

const pct = (n: number, d: number) => (d === 0 ? '–' : `${((100 * n) / d).toFixed(1)}%`);
const num = (x: number) =>
  !Number.isFinite(x) ? (Number.isNaN(x) ? '–' : '∞') : x >= 100 ? x.toFixed(0) : x.toFixed(2);
const ci = (e: Estimate | undefined) =>
  e === undefined
    ? '–'
    : `${num(e.estimate)} (${num(e.low)}–${num(e.high)})${e.corrected ? ' ¹' : ''}`;
const pValue = (p: number | undefined) =>
  p === undefined ? '–' : p < 0.001 ? p.toExponential(1) : p.toPrecision(2);

/** The groups a table reports: all runs, each half, and each scaffold when there are several. */
export function groupsOf(runs: readonly LabelledRun[]): Array<[string, LabelledRun[]]> {
  const scaffolds = [...new Set(runs.map((r) => r.scaffold))];
  const groups: Array<[string, LabelledRun[]]> = [['all', [...runs]]];
  for (const half of ['A', 'B'] as const)
    groups.push([`half ${half}`, runs.filter((r) => halfOf(r.id) === half)]);
  if (scaffolds.length > 1)
    for (const s of scaffolds) groups.push([s, runs.filter((r) => r.scaffold === s)]);
  return groups;
}

/**
 * For each level and group of runs: how many finishes it refuses, the resolved rate of those and
 * of the rest, the refusal cost, the odds ratio with its interval and Fisher's p; then, with
 * several scaffolds, the Mantel–Haenszel odds ratio over them; then where the runs stand.
 */
export function renderLevelOutcomes(runs: readonly LabelledRun[]): string {
  const scaffolds = [...new Set(runs.map((r) => r.scaffold))];
  const resolved = runs.filter((r) => r.resolved).length;
  const out = [
    '#### Verification levels against the outcome (`resolved`)',
    '',
    `${runs.length} finishes with an outcome label (${resolved} resolved), from ${scaffolds.length} scaffold${scaffolds.length === 1 ? '' : 's'} (${scaffolds.join('; ')}); halves A and B split them by the instance id's SHA-256 (first byte below 128: A). For each level: the finishes block mode would refuse, the resolved rate of those and of the ones it lets through, the **refusal cost** (the share of resolved runs it refuses) and the odds ratio of a resolved run among the refused over the let-through (below 1: refusal goes with wrong fixes) with Woolf's 95% interval (¹: a cell was 0, so ½ was added to every cell, Haldane–Anscombe); Fisher's exact p is two-sided. ✓: refusal cost ≤ ${100 * MAX_REFUSAL_COST}% and the whole interval below 1.`,
    '',
    "| runs | level or rule | refused | refused: resolved | let through: resolved | refusal cost | odds ratio (95% CI) | Fisher's exact p | target |",
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | :---: |',
  ];
  for (const [name, list] of groupsOf(runs)) {
    for (const rule of RULES) {
      const row = levelRow(list, rule);
      const { a, b, c, d } = row.table;
      out.push(
        `| ${name} (${list.length}) | ${rule.name} | ${a + b} | ${pct(a, a + b)} | ${pct(c, c + d)} | ${pct(a, a + c)} (${a}/${a + c}) | ${ci(row.odds)} | ${pValue(row.fisherP)} | ${row.meetsTarget ? '✓' : '✗'} |`,
      );
    }
  }
  if (scaffolds.length > 1) {
    out.push(
      '',
      'Stratified by scaffold (Mantel–Haenszel, Robins–Breslow–Greenland 95% interval): ' +
        RULES.map((rule) => {
          const strata = scaffolds.map((s) =>
            tableOf(
              runs.filter((r) => r.scaffold === s),
              (r) => rule.refused(r.levels),
            ),
          );
          return `${rule.name} ${ci(mantelHaenszel(strata))}`;
        }).join('; ') +
        '.',
    );
  }
  out.push(
    '',
    'Where the runs stand: the strictest level each finish meets, and what its last check said (`error`: the last check attempted could not run).',
    '',
    "| level met | runs | resolved | last check failed | last check passed | last check unknown | last attempt error | last check the agent's own script |",
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const met of ORDER) {
    const list = runs.filter((r) => r.levels.met === met);
    const count = (f: (r: LabelledRun) => boolean) => list.filter(f).length;
    out.push(
      `| ${met} | ${list.length} | ${pct(
        count((r) => r.resolved),
        list.length,
      )} | ${count((r) => r.levels.lastCheck?.outcome === 'failed')} | ${count((r) => r.levels.lastCheck?.outcome === 'passed')} | ${count((r) => r.levels.lastCheck?.outcome === 'unknown')} | ${count((r) => r.levels.lastAttemptError !== undefined)} | ${count((r) => r.levels.lastCheck?.kind === 'agent-script')} |`,
    );
  }
  return out.join('\n');
}
