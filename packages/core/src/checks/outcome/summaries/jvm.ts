import { failed, lastLineOf, lineOf, passed, type SummaryReader } from '../summary-reader.js';

/** Maven (Surefire): `Tests run: 2, Failures: 1, Errors: 0, Skipped: 0`, `BUILD FAILURE`. */
export const mavenSummary: SummaryReader = {
  runner: 'maven',
  read(text) {
    const counts = lastLineOf(
      text,
      /^(?:\[\w+\] )?Tests run: \d+, Failures: \d+, Errors: \d+, Skipped: \d+\s*$/gm,
    );
    if (counts !== undefined && /Failures: [1-9]|Errors: [1-9]/.test(counts)) return failed(counts);
    const build = lastLineOf(text, /^\[\w+\] BUILD (?:SUCCESS|FAILURE)$/gm);
    if (build?.endsWith('FAILURE')) return failed(counts ?? build);
    if (build !== undefined) return passed(counts ?? build);
    return undefined;
  },
};

/** Gradle: `2 tests completed, 1 failed`, `> Task :test FAILED`, `BUILD FAILED` / `BUILD SUCCESSFUL`. */
export const gradleSummary: SummaryReader = {
  runner: 'gradle',
  read(text) {
    const failing =
      lineOf(text, /^\d+ tests? completed, [1-9]\d* failed/m) ??
      lineOf(text, /^(?:> Task )?:\S+ FAILED$/m) ??
      lineOf(text, /^BUILD FAILED\b/m);
    if (failing !== undefined) return failed(failing);
    const ok = lineOf(text, /^BUILD SUCCESSFUL\b/m);
    return ok === undefined ? undefined : passed(ok);
  },
};

/** The JUnit Platform console launcher's table: `[ 1 tests failed ]`, `[ 2 tests successful ]`. */
export const junitConsoleSummary: SummaryReader = {
  runner: 'junit console',
  read(text) {
    const failing =
      lineOf(text, /^\[\s+[1-9]\d* tests failed\s+\]$/m) ??
      lineOf(text, /^\[\s+[1-9]\d* containers failed\s+\]$/m);
    if (failing !== undefined) return failed(failing);
    const ok = lineOf(text, /^\[\s+[1-9]\d* tests successful\s+\]$/m);
    return ok === undefined ? undefined : passed(ok);
  },
};
