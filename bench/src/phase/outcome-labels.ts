import { readFileSync } from 'node:fs';
import { type CheckOutcome, readCheckOutcome } from '@agate/core/guards';
import type { SampledCheck } from './outcome-sample.js';

/** One hand-labelled check (bench/fixtures/outcome-labels/labels.jsonl; rules in RULES.md). */
export interface LabelledCheck extends SampledCheck {
  n: number;
  split: (typeof SPLITS)[number];
  label: CheckOutcome;
  /** The labelling rule that applied: `exit-code`, `words`, `not-run`, `nothing`, … */
  basis: string;
  note?: string;
}

export function loadLabels(file: URL | string): LabelledCheck[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as LabelledCheck);
}

/** The reader's outcome for a labelled check, read as the phase gates read it. */
export function readLabelled(check: LabelledCheck): CheckOutcome {
  return readCheckOutcome(check.result, check.exitCodeHidden ? { exitCodeHidden: true } : {})
    .outcome;
}

export interface Score {
  /** Checks with the label. */
  positives: number;
  /** Checks the reader gave the label. */
  predicted: number;
  hits: number;
  precision: number;
  recall: number;
}

/** Precision and recall of the reader for a set of outcomes (`['failed', 'error']`: either). */
export function score(
  checks: readonly LabelledCheck[],
  outcomes: readonly CheckOutcome[],
  read: (check: LabelledCheck) => CheckOutcome = readLabelled,
): Score {
  let positives = 0;
  let predicted = 0;
  let hits = 0;
  for (const check of checks) {
    const truth = outcomes.includes(check.label);
    const said = read(check);
    const guess = outcomes.includes(said);
    if (truth) positives++;
    if (guess) predicted++;
    // A hit: both in the set, and the same outcome (a failed read as error is a miss).
    if (truth && guess && said === check.label) hits++;
  }
  return {
    positives,
    predicted,
    hits,
    precision: predicted === 0 ? Number.NaN : hits / predicted,
    recall: positives === 0 ? Number.NaN : hits / positives,
  };
}

export const SPLITS = ['dev', 'held-out', 'fresh', 'fresh-2'] as const;

const count = (checks: readonly LabelledCheck[], split: LabelledCheck['split']) =>
  checks.filter((c) => c.split === split).length;

const pct = (x: number) => (Number.isNaN(x) ? '–' : `${(100 * x).toFixed(1)}%`);

/** The report: precision and recall of failed, error and both, per split; then each miss. */
export function renderLabelReport(checks: readonly LabelledCheck[]): string {
  const out = [
    '#### The outcome reader against hand labels',
    '',
    `${checks.length} checks drawn at random from the replayed runs and labelled by hand by the rules in \`bench/fixtures/outcome-labels/RULES.md\`, each set's labels written before the reader was run on it. \`dev\` (seed 47): the ${count(checks, 'dev')} checks used while changing the reader; \`held-out\`: the next ${count(checks, 'held-out')} of that draw, labelled at the same time, looked at once the reader was first final, and their misses used for later rules; \`fresh\` (seed 4747, excluding those): ${count(checks, 'fresh')} checks labelled after that, whose last seven misses were then fixed by general rules (so, like the others, they now show only that the reader has not regressed). \`fresh-2\` (seed 5151, excluding all of those): ${count(checks, 'fresh-2')} checks labelled by a labeller who had not read the reader, committed before the reader was run on them and not changed after: the measure of the reader. Targets: recall ≥ 90%, precision ≥ 95% for failed/error.`,
    '',
    '| split | outcome | labelled | read so | correct | precision | recall |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const split of [...SPLITS, 'all'] as const) {
    const list = split === 'all' ? checks : checks.filter((c) => c.split === split);
    for (const [name, outcomes] of [
      ['failed', ['failed']],
      ['error', ['error']],
      ['failed or error', ['failed', 'error']],
    ] as const) {
      const s = score(list, outcomes);
      out.push(
        `| ${split} | ${name} | ${s.positives} | ${s.predicted} | ${s.hits} | ${pct(s.precision)} (${s.hits}/${s.predicted}) | ${pct(s.recall)} (${s.hits}/${s.positives}) |`,
      );
    }
  }
  const signals = checks.filter((c) => c.basis !== 'words');
  const bySignal = score(signals, ['failed', 'error']);
  const words = checks.filter((c) => c.basis === 'words');
  const wordsRead = SPLITS.map((split) => {
    const list = words.filter((c) => c.split === split);
    return `${split} ${list.filter((c) => readLabelled(c) === 'failed').length}/${list.length}`;
  }).join(', ');
  out.push(
    '',
    `Without the ${words.length} checks labelled \`failed\` only by a script's own words at exit 0 (rule 3): failed/error precision ${pct(bySignal.precision)} (${bySignal.hits}/${bySignal.predicted}), recall ${pct(bySignal.recall)} (${bySignal.hits}/${bySignal.positives}). Of those ${words.length}, the reader reads as failed: ${wordsRead}.`,
  );
  const misses = checks.filter((c) => readLabelled(c) !== c.label);
  if (misses.length > 0) {
    out.push('', 'Where the reader and the label differ:', '');
    for (const c of misses)
      out.push(
        `- ${c.split} #${c.n} ${c.id} step ${c.step}: labelled ${c.label} (${c.basis}), read ${readLabelled(c)}${c.note ? ` — ${c.note}` : ''}`,
      );
  }
  return out.join('\n');
}
