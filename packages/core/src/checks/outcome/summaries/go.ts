import { failed, lastLineOf, lineOf, passed, type SummaryReader } from '../summary-reader.js';

/** `go test`: `--- FAIL: TestX (0.00s)`, `FAIL\tpkg` (also `[build failed]`), `ok  \tpkg\t0.01s`. */
export const goTestSummary: SummaryReader = {
  runner: 'go test',
  read(text) {
    const failing = lastLineOf(text, /^FAIL\t\S+.*$/gm) ?? lineOf(text, /^--- FAIL: \S+ \(/m);
    if (failing !== undefined) return failed(failing);
    const ok = lastLineOf(text, /^ok\s+\S+\s+(?:[\d.]+s|\(cached\))/gm);
    return ok === undefined ? undefined : passed(ok);
  },
};
