import {
  InvalidSessionIdError,
  SessionRunningElsewhereError,
  SnapshotError,
  StaleSessionError,
} from '@agate/core';
import { Command, CommanderError } from 'commander';
import { CliError, ExitCode } from './errors.js';
import type { CliIo } from './io.js';
import {
  addApproveCommand,
  addDbCommand,
  addDenyCommand,
  addInitCommand,
  addKeysCommand,
  addRejectCommand,
  addRunCommand,
  addSessionsCommand,
  addShowCommand,
  addStudioCommand,
  addWorkerCommand,
} from './program-commands.js';
import { CLI_VERSION } from './version.js';

/**
 * The `agate` command line. Every action resolves to an exit code; a `CliError` anywhere is
 * printed as one message on stderr with its code (see `ExitCode`).
 */
export function createProgram(io: CliIo, setExit: (code: number) => void): Command {
  const program = new Command('agate')
    .description(
      'Run Agate agents, list and inspect stored sessions, approve or reject checkpoints and held tool calls.',
    )
    .version(CLI_VERSION, '-v, --version', 'print the agate version')
    .exitOverride()
    .configureOutput({
      writeOut: io.out,
      writeErr: io.err,
      // A usage error is one message like every other failure: `agate: <what is wrong>`,
      // with where to look, instead of commander's `error: ...` and a second line.
      outputError: (text, write) =>
        write(
          `agate: ${text
            .replace(/^error: /, '')
            .trim()
            .replace(/\s*\n\s*/g, ' ')
            .replace(/\.$/, '')}. Run \`agate --help\` for the commands and their options.\n`,
        ),
    });

  // In this order: `agate --help` lists the commands as they are added.
  addRunCommand(program, io, setExit);
  addInitCommand(program, io, setExit);
  addWorkerCommand(program, io, setExit);
  addSessionsCommand(program, io, setExit);
  addShowCommand(program, io, setExit);
  addApproveCommand(program, io, setExit);
  addRejectCommand(program, io, setExit);
  addDbCommand(program, io, setExit);
  addDenyCommand(program, io, setExit);
  addStudioCommand(program, io, setExit);
  addKeysCommand(program, io, setExit);

  return program;
}

/** Runs the CLI on `argv` (without the node and script paths); resolves to the exit code. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  let code: number = ExitCode.ok;
  const program = createProgram(io, (c) => {
    code = c;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    if (CliError.isInstance(error)) {
      io.err(`agate: ${error.message}\n`);
      return error.exitCode;
    }
    // From the core, outside a run (a run reports its own errors as status `error`).
    if (InvalidSessionIdError.isInstance(error)) {
      io.err(`agate: ${error.message}\n`);
      return ExitCode.usage;
    }
    if (SnapshotError.isInstance(error)) {
      io.err(`agate: ${error.message}\n`);
      return ExitCode.corrupt;
    }
    // Another process holds the session (or saved it in between): one sentence, non-zero.
    if (SessionRunningElsewhereError.isInstance(error) || StaleSessionError.isInstance(error)) {
      io.err(`agate: ${error.message}\n`);
      return ExitCode.runFailed;
    }
    throw error;
  }
}
