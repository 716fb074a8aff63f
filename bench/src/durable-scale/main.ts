/**
 * The scale bench on its own: `pnpm bench:scale` (`--quick`: 200 runs; `--runs N`; `--no-kill`, `--no-control`;
 * `--write` rewrites the measured block of docs/scaling.md).
 * Prints the section and the target rows `pnpm bench` puts in docs/performance.md.
 */
import { cpus } from 'node:os';
import { machineInfo } from '../machine.js';
import { formatVerdict } from '../verdict.js';
import { measureDurableScale, SCALE_CONCURRENCY } from './measure.js';
import { durableScaleRows, renderDurableScale } from './report.js';
import { writeScalingDoc } from './scaling-doc.js';

const argv = process.argv.slice(2);
const runsAt = argv.indexOf('--runs');
const runs = runsAt >= 0 ? Number(argv[runsAt + 1]) : argv.includes('--quick') ? 200 : 2_000;
const log = (line: string) => process.stderr.write(`${line}\n`);

const result = await measureDurableScale({
  runs,
  workerCounts: [1, 2, 4],
  concurrency: SCALE_CONCURRENCY,
  kill: !argv.includes('--no-kill'),
  control: !argv.includes('--no-control'),
  cores: cpus().length,
  log,
});
const lines = renderDurableScale(result);
lines.push('| target | goal | measured | spread | |', '| --- | ---: | ---: | ---: | --- |');
for (const row of durableScaleRows(result)) {
  lines.push(
    `| ${row.what} | ${row.target} | ${row.measured} | ${row.spread} | ${formatVerdict(row.verdict)} |`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
if (argv.includes('--write') && result.skipped === undefined) {
  const machine = machineInfo();
  log(`wrote ${await writeScalingDoc(result, `${machine.date} at ${machine.commit}`)}`);
}
