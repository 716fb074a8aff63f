import { nextSteps, ScaffoldError, scaffold } from 'create-agate';
import { CliError, ExitCode } from '../errors.js';
import type { CliIo } from '../io.js';

/** `agate init [dir]`: the project `npm create agate` writes, in `dir` (default: here). */
export async function initCommand(
  io: CliIo,
  dir: string,
  options: { name?: string },
): Promise<number> {
  try {
    const result = await scaffold(dir, options.name !== undefined ? { name: options.name } : {});
    io.out(nextSteps(result));
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof ScaffoldError) throw new CliError(error.message, ExitCode.usage);
    throw new CliError(
      `Could not write the project in ${dir}: ${error instanceof Error ? error.message : String(error)}`,
      ExitCode.runFailed,
      { cause: error },
    );
  }
}
