/** What one runner's summary lines say about a run: passed or failed, and the line that says it. */
export interface SummaryVerdict {
  outcome: 'passed' | 'failed';
  /** The line that decided, as printed (`=== 1 failed, 1 passed in 0.91s ===`). */
  line: string;
}

/** Reads one test runner's summary lines; undefined when the output has none of them. */
export interface SummaryReader {
  runner: string;
  read(text: string): SummaryVerdict | undefined;
}

/** The first match of `pattern` (which must have the `m` flag), as a whole trimmed line. */
export function lineOf(text: string, pattern: RegExp): string | undefined {
  const m = pattern.exec(text);
  if (m === null) return undefined;
  const start = text.lastIndexOf('\n', m.index) + 1;
  const end = text.indexOf('\n', m.index + m[0].length);
  return text.slice(start, end === -1 ? undefined : end).trim();
}

/** The last match of `pattern` (global and multiline), as a whole trimmed line. */
export function lastLineOf(text: string, pattern: RegExp): string | undefined {
  let last: RegExpExecArray | undefined;
  for (const m of text.matchAll(pattern)) last = m;
  if (last === undefined) return undefined;
  const start = text.lastIndexOf('\n', last.index) + 1;
  const end = text.indexOf('\n', last.index + last[0].length);
  return text.slice(start, end === -1 ? undefined : end).trim();
}

export const failed = (line: string): SummaryVerdict => ({ outcome: 'failed', line });
export const passed = (line: string): SummaryVerdict => ({ outcome: 'passed', line });
