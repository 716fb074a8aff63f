/**
 * Prints the fresh draw (seed FRESH_SEED, excluding the checks already labelled) as unlabelled
 * JSON lines, the form `labels.jsonl` keeps them in, for labelling by hand before the reader is
 * run on any of them: `pnpm tsx --conditions=@agate/source src/phase/outcome-draw-main.ts`.
 */
import { loadLabels } from './outcome-labels.js';
import { checksOf, DEV, drawFresh, HELD_OUT } from './outcome-sample.js';
import { loadTrajectories } from './replay-bench.js';
import { LABELS, TRAJECTORIES } from './replay-doc.js';

const labelled = loadLabels(LABELS).filter((c) => c.split !== 'fresh');
if (labelled.length !== DEV + HELD_OUT)
  throw new Error(`Expected ${DEV + HELD_OUT} dev and held-out labels, found ${labelled.length}.`);
const fresh = drawFresh(checksOf(loadTrajectories(TRAJECTORIES)), labelled);
fresh.forEach((c, i) => {
  const { id, step, command, exitCodeHidden, result } = c;
  process.stdout.write(
    `${JSON.stringify({ n: DEV + HELD_OUT + i, split: 'fresh', id, step, command, exitCodeHidden, result })}\n`,
  );
});
