/**
 * `pnpm bench:replay`: replays the public SWE-bench trajectories in bench/fixtures/swe-trajectories
 * (or a directory given as the first argument) through `replayPhaseGates` and prints the report.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadLabels, renderLabelReport } from './outcome-labels.js';
import { judgeRun, loadTrajectories, renderReplayReport } from './replay-bench.js';

const here = dirname(fileURLToPath(import.meta.url));
const dir =
  process.argv[2] !== undefined
    ? resolve(process.argv[2])
    : join(here, '..', '..', 'fixtures', 'swe-trajectories');
const runs = loadTrajectories(dir);
if (runs.length === 0) throw new Error(`No *.jsonl or *.jsonl.gz trajectories in ${dir}.`);
const labels = loadLabels(join(here, '..', '..', 'fixtures', 'outcome-labels', 'labels.jsonl'));
process.stdout.write(
  `Replayed ${runs.length} runs from ${dir}.\n\n${renderReplayReport(runs.map(judgeRun))}\n\n${renderLabelReport(labels)}\n`,
);
