/**
 * Prints one of the later draws (`--split fresh` or `--split fresh-2`, default `fresh`) as
 * unlabelled JSON lines, the form `labels.jsonl` keeps them in, for labelling by hand before the
 * reader is run on any of them. Each draw uses its own seed over the checks minus every label of
 * the splits drawn before it, so it prints the same items on every machine:
 * `pnpm tsx --conditions=@agate/source src/phase/outcome-draw-main.ts --split fresh-2`.
 */
import { parseArgs } from 'node:util';
import { loadLabels } from './outcome-labels.js';
import { checksOf, DRAWS, type DrawName, drawFresh } from './outcome-sample.js';
import { loadTrajectories } from './replay-bench.js';
import { LABELS, TRAJECTORIES } from './replay-doc.js';

const { values } = parseArgs({ options: { split: { type: 'string', default: 'fresh' } } });
const name = values.split;
if (!Object.hasOwn(DRAWS, name))
  throw new Error(`Unknown draw "${name}": expected one of ${Object.keys(DRAWS).join(', ')}.`);
const { seed, n, after, labelledBefore } = DRAWS[name as DrawName];
const before: readonly string[] = after;
const labelled = loadLabels(LABELS).filter((c) => before.includes(c.split));
// A draw over a different exclusion set would be a different draw: refuse rather than print it.
if (labelled.length !== labelledBefore)
  throw new Error(
    `Expected ${labelledBefore} labels in ${after.join(', ')} before "${name}", found ${labelled.length}.`,
  );
const fresh = drawFresh(checksOf(loadTrajectories(TRAJECTORIES)), labelled, n, seed);
fresh.forEach((c, i) => {
  const { id, step, command, exitCodeHidden, result } = c;
  process.stdout.write(
    `${JSON.stringify({ n: labelled.length + i, split: name, id, step, command, exitCodeHidden, result })}\n`,
  );
});
