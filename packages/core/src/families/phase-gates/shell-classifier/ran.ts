/** A tool call's result as the phase gates read it. */
export interface CallResult {
  exitCode?: number;
  output?: string;
  /** The tool threw or reported an error (live runs). */
  isError?: boolean;
}

// Said by a test runner that found nothing to run: the check asked for never happened.
const NO_TESTS: RegExp[] = [
  /^=+ (?:no tests ran|\d+ deselected)(?:, \d+ warnings?)? in [\d.]+s\b/m, // pytest
  /^Ran 0 tests in /m, // unittest, Django
  /^No tests found\b/m, // jest
  /No test files found\b/, // vitest, mocha
  /No tests (?:to run|were executed)/, // Maven surefire
  /No tests found for given includes/, // Gradle
];

// Said by a shell, an interpreter or a runner when the thing asked for was never run.
const NOT_RUN: RegExp[] = [
  /command not found/i,
  /^(?:\S*\/)?(?:ba|z|da|k)?sh: (?:line )?\d*:? ?\S+: not found/m,
  /^(?:\S*\/)?(?:ba|z|da|k)?sh: (?:line \d+: )?\S+: (?:No such file or directory|Permission denied)/m,
  /can't open file/i,
  /^\S*python[\d.]*: No module named /m,
  /^\S*python[\d.]*: Error while finding module specification/m,
  /^ERROR: (?:file or directory not found|not found|found no collectors)/m,
  /^(?:no tests ran|collected 0 items)\b/m,
  ...NO_TESTS,
  /^Error: Cannot find module ['"][^'"]*['"]\s*$/m,
  /npm ERR! Missing script|npm error Missing script|error Command "[^"]+" not found/,
  /^error: no such (?:command|subcommand)/m,
  /Could not find or load main class/,
  /^(?:\S+: )?cd: .*No such file or directory/m,
  /^The last command .* timed out and has been killed/m,
];

/**
 * Whether a verification actually ran: exit code 126/127, "command not found", "can't open
 * file", a missing test file or module, a missing npm script, a timeout — each means the check
 * the agent asked for never happened. A run whose tests fail still ran and counts.
 */
export function verificationRan(result: CallResult | undefined): boolean {
  if (result === undefined) return true;
  const code = exitCodeOf(result);
  if (code === 126 || code === 127) return false;
  const output = result.output ?? '';
  return !NOT_RUN.some((pattern) => pattern.test(output)) && !onlyNoTestFiles(output);
}

// `go test` over packages that all have no tests: every package line says so, none ran.
function onlyNoTestFiles(output: string): boolean {
  return /\[no test files\]/.test(output) && !/^(?:ok|FAIL|---|PASS|panic:)\b/m.test(output);
}

/** Why a verification did not run, in a few words (for messages). */
export function whyNotRun(result: CallResult | undefined): string {
  if (result === undefined) return 'it did not run';
  const output = result.output ?? '';
  const code = exitCodeOf(result);
  if (code === 127 || /command not found|: not found/.test(output))
    return 'the command was not found';
  if (code === 126) return 'the command could not be executed';
  if (/timed out/.test(output)) return 'it timed out';
  if (NO_TESTS.some((pattern) => pattern.test(output)) || onlyNoTestFiles(output))
    return 'it found no tests to run';
  if (/No module named/.test(output)) return 'the module is not installed';
  return 'a file it needs does not exist';
}

// Exit codes that tools report inside their text (`<returncode>1</returncode>`, `Exit code: 1`).
const CODE_IN_TEXT =
  /<returncode>\s*(-?\d+)\s*<\/returncode>|\b(?:exit[ _-]?code|return[ _-]?code|exit status)\b\s*[:=]?\s*(-?\d+)/i;

/** The exit code: reported as a field, or inside the tool's text output. */
export function exitCodeOf(result: CallResult): number | undefined {
  if (result.exitCode !== undefined) return result.exitCode;
  const m = CODE_IN_TEXT.exec(result.output ?? '');
  return m ? Number(m[1] ?? m[2]) : undefined;
}
