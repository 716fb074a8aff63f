import { CliError, ExitCode } from '../errors.js';
import type { CliIo } from '../io.js';
import { importOptional } from '../optional-package.js';

/**
 * `agate init [dir] [--template NAME]`: the project `npm create agate` writes, in `dir`
 * (default: here), from the same templates.
 */
export async function initCommand(
  io: CliIo,
  dir: string,
  options: { name?: string; template?: string },
): Promise<number> {
  // An optional peer: a project that only runs agents does not carry the project writer.
  const { nextSteps, ScaffoldError, scaffold } = await importOptional(
    'create-agate',
    () => import('create-agate'),
    'use agate init',
  );
  try {
    const result = await scaffold(dir, {
      ...(options.name !== undefined ? { name: options.name } : {}),
      ...(options.template !== undefined ? { template: options.template } : {}),
    });
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
