/**
 * Runs an `agate` command in this process through `main()`, the code the bin runs, with its
 * output captured: for the tests that check what a command prints, writes or exits with
 * (issue 46 item 4: each child process of the CLI costs about 1.3 s of CPU). What is about the
 * process itself (signals, the bin's exit code end to end, module loading, a closed stdout, the
 * TTY live view, a worker's lifetime) stays in a child process (agate-process.ts).
 *
 * The environment is only what the test passes (and NO_COLOR), never this process's: no
 * provider key or AGATE_* setting of the machine leaks in, and tests running at once cannot
 * race on a shared `process.env`. The working directory is this process's and is not changed
 * (tests run at once would race on it too), so commands get absolute paths; a behaviour that
 * depends on the directory the command starts in is checked through the real bin.
 */
import { isAbsolute } from 'node:path';
import type { CliIo } from '../io.js';
import { main } from '../program.js';

export interface InProcessOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options whose value is a path the command resolves against its working directory. */
const PATH_OPTIONS = new Set(['--store', '--scripted']);

export async function agateInProcess(
  argv: readonly string[],
  options: { env?: Record<string, string> } = {},
): Promise<InProcessOutcome> {
  for (const [i, arg] of argv.entries()) {
    const value = argv[i + 1];
    if (
      PATH_OPTIONS.has(arg) &&
      value !== undefined &&
      !value.includes('://') &&
      !isAbsolute(value)
    ) {
      throw new Error(`agateInProcess: ${arg} ${value} is relative; pass an absolute path`);
    }
  }
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    out: (text) => {
      stdout += text;
    },
    err: (text) => {
      stderr += text;
    },
    env: { NO_COLOR: '1', ...options.env },
    isTTY: false,
    // No signal reaches a command run in-process; the tests about Ctrl-C start a process.
    onInterrupt: () => () => {},
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}
