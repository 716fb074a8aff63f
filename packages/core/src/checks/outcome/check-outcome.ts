import { type CallResult, exitCodeOf, notRunReason } from '../shell-classifier/ran.js';
import { readRunnerSummaries } from './runner-summaries.js';
import { uncaughtAtEnd } from './uncaught.js';
import { failedVerdict, printedErrorAtEnd } from './verdict-words.js';

/**
 * What a check says about the work: it passed, it failed, it could not run (`'error'`: the
 * command, the runner, its module or the JDK was missing, or it timed out), or it does not say.
 */
export type CheckOutcome = 'passed' | 'failed' | 'error' | 'unknown';

/** A check's outcome, and what it was read from. */
export interface CheckReading {
  outcome: CheckOutcome;
  /**
   * What decided: the check did not run (`'not-run'`), the exit code, a runner's summary line,
   * an uncaught error the output ends with (`'exception'`), the tool's own error flag, the
   * script's own verdict (`'words'`: `FAIL: …`, `Bug reproduced`), or nothing.
   */
  by: 'not-run' | 'exit-code' | 'summary' | 'exception' | 'tool-error' | 'words' | 'nothing';
  /** Why the check could not run (`outcome: 'error'`), in a few words. */
  why?: string;
  exitCode?: number;
  /**
   * The line that decided — a runner's summary, the uncaught error, the script's verdict — or
   * the runner's summary that goes with the exit code (for messages).
   */
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
 * A check's outcome, read from its result. First whether it ran at all: a shell or runner that
 * says the command, script, runner module or JDK is missing, exit code 126/127, or a timeout,
 * is `'error'`. Then the exit code when it is the tool's own (a field, or the scaffold's exit
 * line: `<returncode>`, `[Command finished with exit code N]`; never a number the program
 * printed) and the check's; else the summary lines of the common test runners (pytest,
 * unittest and Django, Jest, Vitest, Mocha, `node --test`, `go test`, `cargo test`, Maven,
 * Gradle, the JUnit console launcher, npm/pnpm/yarn `test`); else an uncaught error the output
 * ends with (a Python traceback, Node's uncaught exception, Java's `Exception in thread`,
 * javac's errors) fails; else a tool that reported an error failed. Output no runner summed up
 * fails by the script's own verdict (`FAIL: …`, `Bug reproduced`, `Import failed: <reason>`),
 * even with exit code 0; at exit 0, so does an error it caught and printed last (a traceback,
 * `Error: …`, `Caught exception: …`); else it is `'unknown'`. Pure: the output is untrusted text, read only through bounded
 * patterns.
 */
export function readCheckOutcome(
  result: CallResult | undefined,
  options: ReadCheckOptions = {},
): CheckReading {
  if (result === undefined) return { outcome: 'unknown', by: 'nothing' };
  const why = notRunReason(result);
  if (why !== undefined) return { outcome: 'error', by: 'not-run', why };
  const text = outputText(result.output);
  const summary = text === '' ? undefined : readRunnerSummaries(text);
  const said = summary
    ? { summary: clip(summary.line), runner: summary.runner }
    : ({} as { summary?: string; runner?: string });
  // A script's own verdict, where no runner summed the output up.
  const verdict = summary === undefined && text !== '' ? failedVerdict(text) : undefined;
  const code = options.exitCodeHidden === true ? undefined : exitCodeOf(result);
  if (code !== undefined) {
    const outcome = code === 0 ? 'passed' : 'failed';
    // At exit 0 a script can still say it failed: in words, or by ending on an error it printed.
    const ownVerdict =
      outcome === 'passed' && summary === undefined && text !== ''
        ? (verdict ?? printedErrorAtEnd(text))
        : undefined;
    if (ownVerdict !== undefined)
      return { outcome: 'failed', by: 'words', exitCode: 0, summary: clip(ownVerdict) };
    // A summary that says otherwise is another command's (`pytest && python repro.py`).
    const agrees = summary?.outcome === outcome ? said : {};
    return { outcome, by: 'exit-code', exitCode: code, ...agrees };
  }
  if (summary !== undefined) return { outcome: summary.outcome, by: 'summary', ...said };
  const uncaught = text === '' ? undefined : uncaughtAtEnd(text);
  if (uncaught !== undefined)
    return { outcome: 'failed', by: 'exception', summary: clip(uncaught) };
  if (result.isError === true) return { outcome: 'failed', by: 'tool-error' };
  if (verdict !== undefined) return { outcome: 'failed', by: 'words', summary: clip(verdict) };
  return { outcome: 'unknown', by: 'nothing' };
}

const clip = (line: string) => line.slice(0, LINE);

/** The output as runners' lines: colours removed, `\r` line ends made `\n`, long output bounded. */
function outputText(output: string | undefined): string {
  if (output === undefined || output === '') return '';
  const bounded =
    output.length > HEAD + TAIL
      ? `${output.slice(0, HEAD)}\n${output.slice(output.length - TAIL)}`
      : output;
  // node:util taken when first needed (not at import), as ground/builtins.ts does inside the
  // runtime; this reader is family code, which imports only the public API.
  return process
    .getBuiltinModule('node:util')
    .stripVTControlCharacters(bounded)
    .replace(/\r\n?/g, '\n');
}

/** A reading as a few words for messages: `failed (exit code 1; "=== 1 failed in 0.9s ===")`. */
export function describeReading(reading: CheckReading): string {
  const why = [
    ...(reading.exitCode !== undefined ? [`exit code ${reading.exitCode}`] : []),
    ...(reading.by === 'tool-error' ? ['the tool reported an error'] : []),
    ...(reading.why !== undefined ? [reading.why] : []),
    ...(reading.summary !== undefined ? [`"${reading.summary}"`] : []),
  ];
  return why.length > 0 ? `${reading.outcome} (${why.join('; ')})` : reading.outcome;
}

/** Whether a check ran and did not visibly fail: its outcome is `passed` or `unknown`. */
export function verificationPassed(result: CallResult | undefined): boolean {
  const { outcome } = readCheckOutcome(result);
  return outcome === 'passed' || outcome === 'unknown';
}
