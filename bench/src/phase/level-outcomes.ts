import {
  type ReplayOptions,
  replayPhaseGates,
  type VerificationLevel,
  type VerificationLevelMet,
} from '@agate/core/guards';
import { type Estimate, fisherExact, mantelHaenszel, oddsRatio, type Table2x2 } from './odds.js';

export const LEVELS: readonly VerificationLevel[] = ['ran', 'passed', 'project-tests'];

/** One run judged at every verification level. */
export interface LevelVerdicts {
  /** The strictest level the finish meets. */
  met: VerificationLevelMet;
  /** Whether block mode would refuse the finish at each level. */
  refused: Record<VerificationLevel, boolean>;
  /** The last check that ran: its outcome and whose it was (absent: none ran). */
  lastCheck?: { outcome: string; kind: string };
}

/** Replays a run at each level (the options carry its tools and work product). */
export function judgeLevels(
  steps: Parameters<typeof replayPhaseGates>[0],
  options: ReplayOptions,
): LevelVerdicts {
  const refused = {} as Record<VerificationLevel, boolean>;
  let met: VerificationLevelMet = 'none';
  let lastCheck: LevelVerdicts['lastCheck'];
  for (const level of LEVELS) {
    const replay = replayPhaseGates(steps, { ...options, verification: level });
    refused[level] = replay.exit.refused;
    met = replay.level;
    if (replay.lastCheck)
      lastCheck = { outcome: replay.lastCheck.outcome, kind: replay.lastCheck.kind };
  }
  return { met, refused, ...(lastCheck ? { lastCheck } : {}) };
}

/** A run with an outcome label, for the table: its scaffold (the stratum) and its verdicts. */
export interface LabelledRun {
  scaffold: string;
  resolved: boolean;
  levels: LevelVerdicts;
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

const pct = (n: number, d: number) => (d === 0 ? '–' : `${((100 * n) / d).toFixed(1)}%`);
const num = (x: number) =>
  !Number.isFinite(x) ? (Number.isNaN(x) ? '–' : '∞') : x >= 100 ? x.toFixed(0) : x.toFixed(2);
const ci = (e: Estimate | undefined) =>
  e === undefined
    ? '–'
    : `${num(e.estimate)} (${num(e.low)}–${num(e.high)})${e.corrected ? ' ¹' : ''}`;
const pValue = (p: number) => (p < 0.001 ? p.toExponential(1) : p.toPrecision(2));

/**
 * For each level: the resolved rate of the runs it would refuse and of those it lets through,
 * the odds ratio (Mantel–Haenszel stratified by scaffold, and plain) and Fisher's exact p; then
 * how the runs spread over the level they met.
 */
export function renderLevelOutcomes(runs: readonly LabelledRun[]): string {
  const scaffolds = new Set(runs.map((r) => r.scaffold));
  const out = [
    '### Verification levels against the outcome (`resolved`)',
    '',
    `${runs.length} finishes with an outcome label, from ${scaffolds.size} scaffold${scaffolds.size === 1 ? '' : 's'} (${[...scaffolds].join('; ')}). For each level: the resolved rate of the runs block mode would refuse and of those it lets through; the odds ratio is the odds of a resolved run among the refused over the odds among those let through (below 1: refusal goes with wrong fixes), Mantel–Haenszel stratified by scaffold with the Robins–Breslow–Greenland 95% interval, and plain (pooled, Woolf's interval); Fisher's exact p is two-sided, on the pooled table.`,
    '',
    "| level | refused: resolved (runs) | let through: resolved (runs) | odds ratio, MH by scaffold (95% CI) | odds ratio, plain (95% CI) | Fisher's exact p |",
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  let corrected = false;
  for (const level of LEVELS) {
    const signal = (r: LabelledRun) => r.levels.refused[level];
    const pooled = tableOf(runs, signal);
    const strata = [...scaffolds].map((s) =>
      tableOf(
        runs.filter((r) => r.scaffold === s),
        signal,
      ),
    );
    const refused = pooled.a + pooled.b;
    const through = pooled.c + pooled.d;
    const head = `| ${level} | ${pct(pooled.a, refused)} (${refused}) | ${pct(pooled.c, through)} (${through}) |`;
    // A level that refuses every run or none compares nothing.
    if (refused === 0 || through === 0) {
      out.push(`${head} – | – | – |`);
      continue;
    }
    const plain = oddsRatio(pooled);
    corrected ||= plain.corrected === true;
    out.push(
      `${head} ${ci(mantelHaenszel(strata))} | ${ci(plain)} | ${pValue(fisherExact(pooled))} |`,
    );
  }
  if (corrected) out.push('', '¹ a zero cell: ½ added to every cell (Haldane–Anscombe).');
  out.push(
    '',
    'Where the runs stand: the strictest level each finish meets, and what its last check said.',
    '',
    "| level met | runs | resolved | last check failed | last check passed | last check unknown | last check the agent's own script |",
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const met of ['none', ...LEVELS] as const) {
    const list = runs.filter((r) => r.levels.met === met);
    const count = (f: (r: LabelledRun) => boolean) => list.filter(f).length;
    out.push(
      `| ${met} | ${list.length} | ${pct(
        count((r) => r.resolved),
        list.length,
      )} | ${count((r) => r.levels.lastCheck?.outcome === 'failed')} | ${count((r) => r.levels.lastCheck?.outcome === 'passed')} | ${count((r) => r.levels.lastCheck?.outcome === 'unknown')} | ${count((r) => r.levels.lastCheck?.kind === 'agent-script')} |`,
    );
  }
  return out.join('\n');
}
