import { failed, lastLineOf, passed, type SummaryReader } from '../summary-reader.js';

/** A failing line if any of `lines` counts a failure; else a passing one if any counts passes. */
function decide(lines: ReadonlyArray<string | undefined>, fail: RegExp, pass: RegExp) {
  const present = lines.filter((l): l is string => l !== undefined);
  const failing = present.find((l) => fail.test(l));
  if (failing !== undefined) return failed(failing);
  const passing = present.find((l) => pass.test(l));
  return passing === undefined ? undefined : passed(passing);
}

/** Jest: `Tests: 1 failed, 1 passed, 2 total`; `Test Suites: 1 failed` (a suite that did not load). */
export const jestSummary: SummaryReader = {
  runner: 'jest',
  read: (text) =>
    decide(
      [
        lastLineOf(text, /^Tests:\s+.*\d+ total$/gm),
        lastLineOf(text, /^Test Suites:\s+.*\d+ total$/gm),
      ],
      /\b\d+ failed\b/,
      /\b\d+ passed\b/,
    ),
};

/** Vitest: `Tests  1 failed | 1 passed (2)`, `Test Files  1 failed (1)`, `Errors  1 error`. */
export const vitestSummary: SummaryReader = {
  runner: 'vitest',
  read: (text) =>
    decide(
      [
        lastLineOf(text, /^\s*Tests {2,}\S.*\(\d+\)\s*$/gm),
        lastLineOf(text, /^\s*Test Files {2,}\S.*\(\d+\)\s*$/gm),
        lastLineOf(text, /^\s*Errors {2,}\d+ errors?\b.*$/gm),
      ],
      /\b\d+ (?:failed|errors?)\b/,
      /\b\d+ passed\b/,
    ),
};

/** Mocha: `1 passing (6ms)`, `1 failing`. */
export const mochaSummary: SummaryReader = {
  runner: 'mocha',
  read: (text) =>
    decide(
      [
        lastLineOf(text, /^\s*[1-9]\d* failing$/gm),
        lastLineOf(text, /^\s*\d+ passing \(\d+(?:ms|s|m)\)$/gm),
      ],
      /failing/,
      /[1-9]\d* passing/,
    ),
};

/** Node's test runner (`node --test`): `ℹ fail 1` / `# fail 1` (TAP), `ℹ pass 2`. */
export const nodeTestSummary: SummaryReader = {
  runner: 'node --test',
  read: (text) =>
    decide(
      [lastLineOf(text, /^(?:ℹ|#) fail \d+$/gm), lastLineOf(text, /^(?:ℹ|#) pass \d+$/gm)],
      /fail [1-9]/,
      /pass [1-9]/,
    ),
};

// What npm, pnpm and yarn print when the test script they ran failed (they say nothing on a pass).
const WRAPPER_FAILED = [
  /^npm ERR! Test failed\. {1,2}See above for more details\.$/gm, // npm ≤ 8
  /^npm error Lifecycle script `[^`]+` failed with error:$/gm, // npm 9–10
  /^\s*ELIFECYCLE\s+(?:Test|Command) failed\b.*$/gm, // pnpm
  /^error Command failed with exit code [1-9]\d*\.$/gm, // yarn 1
];

/** npm/pnpm/yarn `test`: the wrapper's own failure line (the runner it ran decides a pass). */
export const packageScriptSummary: SummaryReader = {
  runner: 'npm/pnpm/yarn',
  read(text) {
    for (const pattern of WRAPPER_FAILED) {
      const line = lastLineOf(text, pattern);
      if (line !== undefined) return failed(line);
    }
    return undefined;
  },
};
