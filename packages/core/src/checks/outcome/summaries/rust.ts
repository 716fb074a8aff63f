import { failed, lastLineOf, lineOf, passed, type SummaryReader } from '../summary-reader.js';

/** `cargo test`: `test result: FAILED. 1 passed; 1 failed; …`; a build error; nextest's `Summary`. */
export const cargoTestSummary: SummaryReader = {
  runner: 'cargo test',
  read(text) {
    const failing =
      lineOf(text, /^test result: FAILED\. /m) ??
      lineOf(text, /^error: (?:could not compile|test failed)\b/m) ??
      lineOf(text, /^\s*Summary \[.*\] \d+ tests? run: .*\b[1-9]\d* failed\b/m);
    if (failing !== undefined) return failed(failing);
    const ok =
      lastLineOf(text, /^test result: ok\. [1-9]\d* passed; 0 failed\b.*$/gm) ??
      lastLineOf(text, /^test result: ok\. .*$/gm) ??
      lineOf(text, /^\s*Summary \[.*\] \d+ tests? run: \d+ passed\b/m);
    return ok === undefined ? undefined : passed(ok);
  },
};
