import { AgateError, nameErrorClass } from '@agate/core';

/**
 * The `agate` command's exit codes. Scripts branch on them, so they are part of the CLI's
 * contract (docs/cli.md lists them).
 */
export const ExitCode = {
  /** The command did what it was asked; for `run`, the run completed. */
  ok: 0,
  /** `run`: the run ended without completing (blocked, stopped, max-ticks, error). */
  runFailed: 1,
  /** Bad arguments or configuration: unknown option, no model, an agent file or script that cannot be used. */
  usage: 2,
  /** No session, or no checkpoint, with that id. */
  notFound: 3,
  /** The checkpoint is not pending, so there is nothing to approve or reject. */
  notPending: 4,
  /** The approval key does not match the signatures already in the session. */
  badKey: 5,
  /** A session file that cannot be read: truncated, hand-edited into an invalid shape, another version. */
  corrupt: 6,
  /** `run`: the run ended waiting for a person (paused, awaiting-approval). */
  waiting: 7,
  /** `run`: interrupted with Ctrl-C (128 + SIGINT, as shells report it). */
  interrupted: 130,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** A failure the CLI reports as one clear message on stderr, with its exit code. */
export class CliError extends AgateError {
  static {
    nameErrorClass(CliError, 'CliError');
  }
  constructor(
    message: string,
    readonly exitCode: ExitCodeValue,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
