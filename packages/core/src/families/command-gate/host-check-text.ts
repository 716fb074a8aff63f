import type { CommandGateRun } from './command-gate-types.js';

/** The last `max` characters of a check's output, with a note when the head was cut. */
export function outputTail(stdout: string, stderr: string, max: number): string {
  const both =
    stderr === '' ? stdout : stdout === '' ? stderr : `${stdout.replace(/\n?$/, '\n')}${stderr}`;
  const text = both.replace(/\s+$/, '');
  if (text.length <= max) return text;
  return `[... ${(text.length - max).toLocaleString('en-US')} characters cut ...]\n${text.slice(text.length - max)}`;
}

/** What the run found, in a few words: `failed (exit code 1; "1 failed, 2 passed in 0.1s")`. */
export function describeRun(run: CommandGateRun, timeoutMs: number): string {
  if (run.notRun !== undefined) return `could not run: ${run.notRun}`;
  if (run.timedOut) return `timed out after ${formatMs(timeoutMs)} and was killed`;
  const why = [
    run.exitCode === null ? 'no exit code' : `exit code ${run.exitCode}`,
    ...(run.summary !== undefined ? [`"${run.summary}"`] : []),
  ];
  return `${run.passed ? 'passed' : 'failed'} (${why.join('; ')})`;
}

/** The host check as the model reads it in the timeline. */
export function hostCheckMessage(
  gate: string,
  command: string,
  run: CommandGateRun,
  timeoutMs: number,
): string {
  return [
    `[host check "${gate}"] At your attempt to finish, the host ran \`${command}\` itself: ${describeRun(run, timeoutMs)}.`,
    ...(run.tail !== '' ? ['Output (tail):', run.tail] : []),
  ].join('\n');
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
