/**
 * The tables of docs/phase-gates.md that `pnpm bench:replay` computes: each lies between two
 * markers (`docs-section.ts`), `pnpm bench:replay:write` rewrites them, and
 * `replay-doc.test.ts` fails when the doc and the bench disagree.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withSection } from '../docs-section.js';
import { type LabelledCheck, loadLabels, renderLabelReport } from './outcome-labels.js';
import { judgeRun, loadTrajectories, renderReplaySections } from './replay-bench.js';

const here = dirname(fileURLToPath(import.meta.url));

export const FIXTURES = join(here, '..', '..', 'fixtures');
export const TRAJECTORIES = join(FIXTURES, 'swe-trajectories');
export const LABELS = join(FIXTURES, 'outcome-labels', 'labels.jsonl');
export const PHASE_GATES_DOC = join(here, '..', '..', '..', 'docs', 'phase-gates.md');

/** The generated sections by id, in the order the doc holds them. */
export const SECTION_IDS = {
  refusals: 'pnpm bench:replay:write refusals',
  levels: 'pnpm bench:replay:write levels',
  reader: 'pnpm bench:replay:write outcome reader',
} as const;

export type ReplayDocSections = Record<keyof typeof SECTION_IDS, string>;

/** Every section, from the runs in `dir` and the hand labels. */
export function replayDocSections(
  dir: string = TRAJECTORIES,
  labels: readonly LabelledCheck[] = loadLabels(LABELS),
): ReplayDocSections {
  const runs = loadTrajectories(dir);
  if (runs.length === 0) throw new Error(`No *.jsonl or *.jsonl.gz trajectories in ${dir}.`);
  const { refusals, levels } = renderReplaySections(runs.map(judgeRun));
  return { refusals, levels, reader: renderLabelReport(labels) };
}

/** `doc` with each generated section replaced (or appended, the first time). */
export function withReplaySections(doc: string, sections: ReplayDocSections): string {
  let next = doc;
  for (const key of Object.keys(SECTION_IDS) as Array<keyof typeof SECTION_IDS>)
    next = withSection(next, SECTION_IDS[key], sections[key]);
  return next;
}
