import { stripVTControlCharacters } from 'node:util';
import { type CallResult, exitCodeOf } from '../shell-classifier/ran.js';
import { readRunnerSummaries } from './runner-summaries.js';

/** What a check that ran says about the work: it passed, it failed, or it does not say. */
export type CheckOutcome = 'passed' | 'failed' | 'unknown';

/** A check's outcome, and what it was read from. */
export interface CheckReading {
  outcome: CheckOutcome;
  /** What decided: the exit code, a runner's summary line, the tool's own error flag, or nothing. */
  by: 'exit-code' | 'summary' | 'tool-error' | 'nothing';
  exitCode?: number;
  /** The runner's summary line that decided, or that goes with the exit code (for messages). */
  summary?: string;
  /** The runner the summary line is from (`pytest`, `go test`, `npm/pnpm/yarn`, …). */
  runner?: string;
}

export interface ReadCheckOptions {
  /**
   * The call's exit code is not this check's: its output was piped on (`pytest | tail`), or
   * `;` or `||` followed it. Only its summary lines can tell.
   */
  exitCodeHidden?: boolean;
}

// Summaries are at the end and failures anywhere: read the head and the tail of a long output.
const HEAD = 16_000;
const TAIL = 48_000;
const LINE = 200;

/**
 * A check's outcome, read from its result: the exit code when it is known (a field, or in the
 * tool's text, as `verificationRan` reads it) and is the check's own; else the summary lines
 * of the common test runners (pytest, unittest and Django, Jest, Vitest, Mocha, `node --test`,
 * `go test`, `cargo test`, Maven, Gradle, the JUnit console launcher, npm/pnpm/yarn `test`);
 * else a tool that reported an error failed; else `unknown`. Pure: the output is untrusted text,
 * read only through bounded patterns.
 */
export function readCheckOutcome(
  result: CallResult | undefined,
  options: ReadCheckOptions = {},
): CheckReading {
  if (result === undefined) return { outcome: 'unknown', by: 'nothing' };
  const text = outputText(result.output);
  const summary = text === '' ? undefined : readRunnerSummaries(text);
  const said = summary
    ? { summary: summary.line.slice(0, LINE), runner: summary.runner }
    : ({} as { summary?: string; runner?: string });
  const code = options.exitCodeHidden === true ? undefined : exitCodeOf(result);
  if (code !== undefined) {
    const outcome = code === 0 ? 'passed' : 'failed';
    // A summary that says otherwise is another command's (`pytest && python repro.py`).
    const agrees = summary?.outcome === outcome ? said : {};
    return { outcome, by: 'exit-code', exitCode: code, ...agrees };
  }
  if (summary !== undefined) return { outcome: summary.outcome, by: 'summary', ...said };
  if (result.isError === true) return { outcome: 'failed', by: 'tool-error' };
  return { outcome: 'unknown', by: 'nothing' };
}

/** The output as runners' lines: colours removed, `\r` line ends made `\n`, long output bounded. */
function outputText(output: string | undefined): string {
  if (output === undefined || output === '') return '';
  const bounded =
    output.length > HEAD + TAIL
      ? `${output.slice(0, HEAD)}\n${output.slice(output.length - TAIL)}`
      : output;
  return stripVTControlCharacters(bounded).replace(/\r\n?/g, '\n');
}

/** A reading as a few words for messages: `failed (exit code 1; "=== 1 failed in 0.9s ===")`. */
export function describeReading(reading: CheckReading): string {
  const why = [
    ...(reading.exitCode !== undefined ? [`exit code ${reading.exitCode}`] : []),
    ...(reading.by === 'tool-error' ? ['the tool reported an error'] : []),
    ...(reading.summary !== undefined ? [`"${reading.summary}"`] : []),
  ];
  return why.length > 0 ? `${reading.outcome} (${why.join('; ')})` : reading.outcome;
}

/** Whether a check did not visibly fail: its outcome is `passed` or `unknown`. */
export function verificationPassed(result: CallResult | undefined): boolean {
  return readCheckOutcome(result).outcome !== 'failed';
}
