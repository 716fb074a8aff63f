import { failed, lastLineOf, lineOf, passed, type SummaryReader } from '../summary-reader.js';

const COUNT = String.raw`\d+ (?:failed|passed|skipped|deselected|xfailed|xpassed|warnings?|errors?|rerun)`;
const COUNTS = `${COUNT}(?:, ${COUNT})*`;
// `==== 1 failed, 1 passed in 0.91s ====` (and `-q`'s bare `1 failed, 1 passed in 0.91s`).
const PYTEST_SUMMARY = new RegExp(String.raw`^=*\s?(${COUNTS}) in [\d.]+s\b`, 'gm');
// Stored outputs are often cut: a last line `==== 1 passed i` still says everything before it.
const PYTEST_CUT_SUMMARY = new RegExp(String.raw`(?:^|\n)=+ (${COUNTS}) in?$`);
const PYTEST_FAILURES = [
  /^FAILED \S+::\S*/m, // the short test summary
  /^ERROR \S+(?:::\S*| - )/m,
  /^\S+::\S+ (?:FAILED|ERROR)\b/m, // -v
  /^\S+\.py [.sxX]*[FE][.FEsxX]*(?:\s+\[[\s\d%]*\]?)?\s*$/m, // progress: `test_calc.py F.  [100%]` (maybe cut)
  /^[.sxX]*[FE][.FEsxX]*\s+\[\s*\d+%\]$/m, // -q progress
  /^Interrupted: \d+ errors? during collection/m,
];

/** pytest: its summary line, or a failure it reported on the way (progress `F`, `FAILED t::x`). */
export const pytestSummary: SummaryReader = {
  runner: 'pytest',
  read(text) {
    const summary = lastLineOf(text, PYTEST_SUMMARY);
    const counts = summary !== undefined ? summary : PYTEST_CUT_SUMMARY.exec(text)?.[0].trim();
    if (counts !== undefined) {
      if (/\b\d+ (?:failed|errors?)\b/.test(counts)) return failed(counts);
      if (/\b\d+ passed\b/.test(counts)) return passed(counts);
    }
    for (const pattern of PYTEST_FAILURES) {
      const line = lineOf(text, pattern);
      if (line !== undefined) return failed(line);
    }
    return undefined;
  },
};

const RAN = /^Ran [1-9]\d* tests? in [\d.]+s$/m;
const UNITTEST_FAILURES = [
  /^FAILED \((?:failures|errors|unexpected successes)=\d+.*\)$/m,
  // The block each failure gets: a line of `=`, then `FAIL: test_x (module.Class)`.
  /(?<=^={20,}\n)(?:FAIL|ERROR): \S+ \(.+\)$/m,
  /^\w+ \([\w.]+\)(?: \S.*)? \.\.\. (?:FAIL|ERROR)$/m, // -v
];

/** unittest (and Django's test runner): `Ran N tests`, then `OK` or `FAILED (failures=1)`. */
export const unittestSummary: SummaryReader = {
  runner: 'unittest',
  read(text) {
    for (const pattern of UNITTEST_FAILURES) {
      const line = lineOf(text, pattern);
      if (line !== undefined) return failed(line);
    }
    const ran = RAN.exec(text);
    if (ran === null) return undefined;
    const ok = lineOf(text.slice(ran.index), /^OK(?: \(.*\))?$/m);
    return ok === undefined ? undefined : passed(`${ran[0]} … ${ok}`);
  },
};
