/**
 * `pnpm bench:replay`: replays the public SWE-bench trajectories in bench/fixtures/swe-trajectories
 * (or a directory given as the first argument) through `replayPhaseGates` and prints the report.
 * `--write` (`pnpm bench:replay:write`) also rewrites the generated tables of docs/phase-gates.md.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  PHASE_GATES_DOC,
  replayDocSections,
  TRAJECTORIES,
  withReplaySections,
} from './replay-doc.js';

const args = process.argv.slice(2);
const write = args.includes('--write');
const given = args.find((a) => !a.startsWith('--'));
// The doc describes the published fixtures: tables from another directory would misdescribe them.
if (write && given !== undefined)
  throw new Error(
    '--write rewrites docs/phase-gates.md from the fixtures only: drop the directory.',
  );
const dir = given !== undefined ? resolve(given) : TRAJECTORIES;
const sections = replayDocSections(dir);
process.stdout.write(
  `Replayed runs from ${dir}.\n\n${sections.refusals}\n\n${sections.levels}\n\n${sections.reader}\n`,
);
if (write) {
  writeFileSync(
    PHASE_GATES_DOC,
    withReplaySections(readFileSync(PHASE_GATES_DOC, 'utf8'), sections),
  );
  process.stderr.write(`wrote ${PHASE_GATES_DOC}\n`);
}
