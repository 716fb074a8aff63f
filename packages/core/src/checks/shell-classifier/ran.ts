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

// The JDK a Java build needs is missing (mvnw, gradlew, the java launcher).
const NO_JDK: RegExp[] = [
  /JAVA_HOME (?:is not (?:defined|set)|environment variable is not defined|is set to an invalid directory)/i,
  /no 'java' command could be found/i,
  /Unable to locate a Java Runtime/,
];

// Said by a shell, an interpreter or a runner when the thing asked for was never run.
const NOT_RUN: RegExp[] = [
  /command not found/i,
  /^(?:\S*\/)?(?:ba|z|da|k)?sh: (?:line )?\d*:? ?\S+: not found/m,
  /^(?:\S*\/)?(?:ba|z|da|k)?sh: (?:line )?\d*:? ?\S+: (?:No such file or directory|Permission denied)/m,
  /is not recognized as an internal or external command/,
  /can't open file/i,
  /^\S*python[\d.]*: No module named /m,
  /^\S*python[\d.]*: Error while finding module specification/m,
  /^ERROR: (?:file or directory not found|not found|found no collectors)/m,
  // `collected 0 items / 1 error`: collecting failed, which the runner reports (a failure).
  /^(?:no tests ran|collected 0 items(?! \/ \d+ errors?\b))\b/m,
  ...NO_TESTS,
  /^Error: Cannot find module ['"][^'"]*['"]\s*$/m,
  /npm ERR! Missing script|npm error Missing script|error Command "[^"]+" not found/,
  /^error: no such (?:command|subcommand)/m,
  /Could not find or load main class/,
  /^(?:\S+: )?cd: .*No such file or directory/m,
  /^The last command .* timed out and has been killed/m,
  // OpenHands: the call was cut off before the command finished.
  /^\[The command (?:timed out|has no new output after)\b/m,
  /^\[Command timed out\b/m,
  ...NO_JDK,
];

/**
 * Whether a verification actually ran: exit code 126/127, "command not found", "can't open
 * file", a missing test file or module, a missing npm script, no JDK, a timeout — each means
 * the check the agent asked for never happened. A run whose tests fail still ran and counts.
 */
export function verificationRan(result: CallResult | undefined): boolean {
  return notRunReason(result) === undefined;
}

// `go test` over packages that all have no tests: every package line says so, none ran.
function onlyNoTestFiles(output: string): boolean {
  return /\[no test files\]/.test(output) && !/^(?:ok|FAIL|---|PASS|panic:)\b/m.test(output);
}

/** Why a verification did not run, in a few words (for messages). */
export function whyNotRun(result: CallResult | undefined): string {
  return notRunReason(result) ?? 'it did not run';
}

/** Why the check did not run (undefined: it ran, or there is nothing to tell it did not). */
export function notRunReason(result: CallResult | undefined): string | undefined {
  if (result === undefined) return undefined;
  const output = result.output ?? '';
  const code = exitCodeOf(result);
  const said = NOT_RUN.some((pattern) => pattern.test(output)) || onlyNoTestFiles(output);
  if (code !== 126 && code !== 127 && !said) return undefined;
  if (NO_JDK.some((pattern) => pattern.test(output)))
    return 'no Java runtime was found (JAVA_HOME or java is missing)';
  if (code === 127 || /command not found|: not found|is not recognized as an/.test(output))
    return 'the command was not found';
  if (code === 126 || /Permission denied/.test(output)) return 'the command could not be executed';
  if (/timed out|has no new output after/.test(output)) return 'it timed out';
  if (NO_TESTS.some((pattern) => pattern.test(output)) || onlyNoTestFiles(output))
    return 'it found no tests to run';
  if (/No module named|Error while finding module/.test(output))
    return 'the module is not installed';
  return 'a file it needs does not exist';
}

// The tool's own exit line, never a number the program prints ("returned non-zero exit status
// 2"): mini-swe-agent's `<returncode>`, OpenHands' `[Command finished with exit code N]` and
// `[The command completed with exit code N.]`, or an `Exit code: N` line that opens or closes
// the tool's text.
const SCAFFOLD_CODE =
  /^\s*<returncode>\s*(-?\d+)\s*<\/returncode>|^\[(?:Command finished with exit code (-?\d+)|The command completed with exit code (-?\d+)\.?)\]\r?$/gm;
const FRAME_CODE = /^(?:exit[ _-]?code|return[ _-]?code|exit status)\s*[:=]\s*(-?\d+)$/i;

/** The exit code: reported as a field, or by the tool's own exit line in its text. */
export function exitCodeOf(result: CallResult): number | undefined {
  if (result.exitCode !== undefined) return result.exitCode;
  const output = result.output ?? '';
  let last: number | undefined;
  for (const m of output.matchAll(SCAFFOLD_CODE)) last = Number(m[1] ?? m[2] ?? m[3]);
  if (last !== undefined) return last;
  const text = output.trim();
  const first = text.slice(0, Math.max(0, text.indexOf('\n')) || text.length);
  const lastLine = text.slice(text.lastIndexOf('\n') + 1);
  for (const line of [first, lastLine]) {
    const m = line.length > 40 ? null : FRAME_CODE.exec(line.trim());
    if (m !== null) return Number(m[1]);
  }
  return undefined;
}
