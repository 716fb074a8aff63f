import { readFileSync } from 'node:fs';
import {
  APPROVAL_KEY_ENV,
  APPROVAL_KEY_FILE_ENV,
  ApprovalKeyError,
  approveCheckpoint,
  CheckpointDecisionError,
  type CheckpointLedgerEntry,
  CheckpointNotPendingError,
  InvalidSessionIdError,
  rejectCheckpoint,
  SnapshotError,
  UnknownCheckpointError,
  UnknownSessionError,
} from '@agate/core';
import { CliError, ExitCode } from '../errors.js';
import type { CliIo } from '../io.js';
import { openStore } from '../sessions/stored-session.js';

export interface DecideOptions {
  store: string;
  by: string;
  /** The supervisor's private key file (else AGATE_APPROVAL_KEY_FILE, else AGATE_APPROVAL_KEY). */
  keyFile?: string;
  note?: string;
  feedback?: string;
}

/**
 * `agate approve` / `agate reject`: a supervisor's decision on a pending checkpoint of a
 * stored session, signed with `AGATE_APPROVAL_KEY` when it is set. On any error nothing in
 * the store changes (`approveCheckpoint` checks everything before it writes).
 */
export async function decideCommand(
  io: CliIo,
  kind: 'approve' | 'reject',
  sessionId: string,
  checkpointId: string,
  options: DecideOptions,
): Promise<number> {
  const ref = openStore(options.store);
  const keyFile = options.keyFile ?? nonEmpty(io.env[APPROVAL_KEY_FILE_ENV]);
  // A private key wins: the shared secret (HMAC) is the older, weaker mode.
  const key = keyFile === undefined ? nonEmpty(io.env[APPROVAL_KEY_ENV]) : undefined;
  const privateKey = keyFile === undefined ? undefined : readPrivateKey(keyFile);
  let entry: CheckpointLedgerEntry;
  try {
    entry =
      kind === 'approve'
        ? await approveCheckpoint(ref.store, sessionId, checkpointId, {
            by: options.by,
            ...(options.note !== undefined ? { note: options.note } : {}),
            ...(key !== undefined ? { key } : {}),
            ...(privateKey !== undefined ? { privateKey } : {}),
          })
        : await rejectCheckpoint(ref.store, sessionId, checkpointId, {
            by: options.by,
            feedback: options.feedback ?? '',
            ...(key !== undefined ? { key } : {}),
            ...(privateKey !== undefined ? { privateKey } : {}),
          });
  } catch (error) {
    throw decisionError(error, sessionId, ref.dir);
  } finally {
    await ref.close?.();
  }
  const signed = entry.signature !== undefined ? `signed with key ${entry.keyId}` : 'unsigned';
  io.out(
    `${kind === 'approve' ? 'Approved' : 'Rejected'} checkpoint ${checkpointId} of session ${sessionId} ` +
      `by ${entry.by} (ledger entry #${entry.seq}, ${signed}).\n` +
      `Continue the run: agate run <agent-file> --store ${ref.dir} --resume ${sessionId}\n`,
  );
  return ExitCode.ok;
}

/** The key file's PEM text; a file that cannot be read is the user's to fix (exit code 5). */
export function readPrivateKey(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(
      `Cannot read the private key file ${file}: ${(error as Error).message}. ` +
        'Give the file `agate keys new` wrote (agate-approval.key).',
      ExitCode.badKey,
      { cause: error },
    );
  }
}

/** The core's typed errors, each with its exit code. */
function decisionError(error: unknown, sessionId: string, dir: string): unknown {
  const wrap = (code: (typeof ExitCode)[keyof typeof ExitCode], message?: string) =>
    new CliError(message ?? (error as Error).message, code, { cause: error });
  if (error instanceof UnknownSessionError) {
    return wrap(
      ExitCode.notFound,
      `No session "${sessionId}" in ${dir}. Run \`agate sessions --store ${dir}\` to list the stored sessions.`,
    );
  }
  if (error instanceof UnknownCheckpointError) return wrap(ExitCode.notFound);
  if (error instanceof CheckpointNotPendingError) return wrap(ExitCode.notPending);
  if (error instanceof ApprovalKeyError) return wrap(ExitCode.badKey);
  if (error instanceof CheckpointDecisionError || error instanceof InvalidSessionIdError) {
    return wrap(ExitCode.usage);
  }
  if (error instanceof SnapshotError) return wrap(ExitCode.corrupt);
  return error;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
