import { execFile } from 'node:child_process';

export interface TestRun {
  /** The process exit code; 0 means every test passed. Null when it was killed (timeout). */
  exitCode: number | null;
  passed: boolean;
  timedOut: boolean;
  /** stdout + stderr, trimmed to the last `MAX_OUTPUT` characters (failures print last). */
  output: string;
}

const MAX_OUTPUT = 4_000;

/**
 * Runs the workspace's tests for real: `node --test` in `root`, with a timeout. A failing
 * suite is a normal result (the model reads it), not a thrown error.
 */
export function runNodeTests(
  root: string,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<TestRun> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  // A parent test runner's context would make the child report to it instead of printing.
  const { NODE_TEST_CONTEXT: _context, NODE_OPTIONS: _options, ...env } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--test', '--test-reporter=spec'],
      {
        cwd: root,
        env: { ...env, NO_COLOR: '1', FORCE_COLOR: '0' },
        timeout: timeoutMs,
        maxBuffer: 4 * 1024 * 1024,
        ...(options.signal ? { signal: options.signal } : {}),
      },
      (error, stdout, stderr) => {
        const failure = error as (NodeJS.ErrnoException & { killed?: boolean }) | null;
        const exitCode =
          failure === null ? 0 : typeof failure.code === 'number' ? failure.code : null;
        const timedOut = failure?.killed === true && exitCode === null;
        const notes = [
          timedOut ? `Timed out after ${timeoutMs} ms; the test process was killed.` : '',
          failure !== null && exitCode === null && !timedOut
            ? `Could not run the tests: ${failure.message}`
            : '',
        ];
        const text = [...notes, `${stdout}${stderr}`.trim()].filter(Boolean).join('\n');
        resolve({
          exitCode,
          passed: exitCode === 0,
          timedOut,
          output: text.length > MAX_OUTPUT ? `…${text.slice(-MAX_OUTPUT)}` : text,
        });
      },
    );
  });
}
