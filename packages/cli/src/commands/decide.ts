import { readFileSync } from 'node:fs';
import {
  ApprovalKeyError,
  approveCheckpoint,
  approveToolCall,
  CheckpointDecisionError,
  CheckpointNotPendingError,
  denyToolCall,
  InvalidSessionIdError,
  rejectCheckpoint,
  SnapshotError,
  ToolApprovalDecisionError,
  ToolCallNotPendingError,
  UnknownCheckpointError,
  UnknownSessionError,
  UnknownToolCallError,
} from '@agate/core';
import {
  type CheckpointLedgerEntry,
  type GuardStates,
  hasToolApproval,
  type ToolLedgerEntry,
} from '@agate/core/guards';
import { APPROVAL_KEY_ENV, APPROVAL_KEY_FILE_ENV } from '@agate/core/internal';
import { CliError, ExitCode } from '../errors.js';
import { shellQuote } from '../format/shell-quote.js';
import type { CliIo } from '../io.js';
import { openStore, type StoreRef } from '../sessions/stored-session.js';

export interface DecideOptions {
  store: string;
  by: string;
  /** The supervisor's private key file (else AGATE_APPROVAL_KEY_FILE, else AGATE_APPROVAL_KEY). */
  keyFile?: string;
  note?: string;
  feedback?: string;
  /** `agate deny`: why the call is denied (the model reads it). */
  reason?: string;
}

/**
 * `agate approve` / `agate reject` / `agate deny`: a decision on a pending checkpoint or on a
 * tool call held for approval (`needsApproval`) of a stored session, signed with
 * `--key-file`, `AGATE_APPROVAL_KEY_FILE` or `AGATE_APPROVAL_KEY` when set. The id says which:
 * a tool call id the session holds for approval, else a checkpoint id. On any error nothing in
 * the store changes (the core checks everything before it writes).
 */
export async function decideCommand(
  io: CliIo,
  kind: 'approve' | 'reject' | 'deny',
  sessionId: string,
  id: string,
  options: DecideOptions,
): Promise<number> {
  const ref = await openStore(options.store);
  const keyFile = options.keyFile ?? nonEmpty(io.env[APPROVAL_KEY_FILE_ENV]);
  // A private key wins: the shared secret (HMAC) is the older, weaker mode.
  const key = keyFile === undefined ? nonEmpty(io.env[APPROVAL_KEY_ENV]) : undefined;
  const privateKey = keyFile === undefined ? undefined : readPrivateKey(keyFile);
  const keys = {
    ...(key !== undefined ? { key } : {}),
    ...(privateKey !== undefined ? { privateKey } : {}),
  };
  let entry: CheckpointLedgerEntry | ToolLedgerEntry;
  let what: string;
  try {
    const toolCall = await isToolCall(ref.store, sessionId, id);
    if (kind === 'deny' && !toolCall) {
      throw new CliError(
        `Session "${sessionId}" holds no tool call "${id}" for approval. To send a pending checkpoint back, use \`agate reject ${sessionId} ${id} --by NAME --feedback TEXT\`.`,
        ExitCode.notFound,
      );
    }
    if (toolCall) {
      what = `tool call ${id}`;
      entry =
        kind === 'approve'
          ? await approveToolCall(ref.store, sessionId, id, {
              by: options.by,
              ...(options.reason !== undefined ? { reason: options.reason } : {}),
              ...keys,
            })
          : await denyToolCall(ref.store, sessionId, id, {
              by: options.by,
              // `agate reject` on a call id denies it with its feedback as the reason.
              reason: options.reason ?? options.feedback ?? '',
              ...keys,
            });
    } else {
      what = `checkpoint ${id}`;
      entry =
        kind === 'approve'
          ? await approveCheckpoint(ref.store, sessionId, id, {
              by: options.by,
              ...(options.note !== undefined ? { note: options.note } : {}),
              ...keys,
            })
          : await rejectCheckpoint(ref.store, sessionId, id, {
              by: options.by,
              feedback: options.feedback ?? '',
              ...keys,
            });
    }
  } catch (error) {
    throw decisionError(error, sessionId, ref.dir);
  } finally {
    await ref.close?.();
  }
  const signed = entry.signature !== undefined ? `signed with key ${entry.keyId}` : 'unsigned';
  const verb =
    entry.kind === 'approved' || entry.kind === 'tool-approved'
      ? 'Approved'
      : entry.kind === 'tool-denied'
        ? 'Denied'
        : 'Rejected';
  io.out(
    `${verb} ${what} of session ${sessionId} by ${entry.by} (ledger entry #${entry.seq}, ${signed}).\n` +
      `Continue the run: agate run <agent-file> --store ${shellQuote(ref.dir)} --resume ${shellQuote(sessionId)}\n`,
  );
  return ExitCode.ok;
}

/** Whether `id` names a tool call the stored session holds for approval (else a checkpoint). */
async function isToolCall(
  store: StoreRef['store'],
  sessionId: string,
  id: string,
): Promise<boolean> {
  const snapshot = await store.load(sessionId);
  if (snapshot === undefined) return false;
  return hasToolApproval(snapshot.state as { guards: Pick<GuardStates, 'approvals'> }, id);
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
  if (UnknownSessionError.isInstance(error)) {
    return wrap(
      ExitCode.notFound,
      `No session "${sessionId}" in ${dir}. Run \`agate sessions --store ${dir}\` to list the stored sessions.`,
    );
  }
  if (CliError.isInstance(error)) return error;
  if (UnknownCheckpointError.isInstance(error) || UnknownToolCallError.isInstance(error)) {
    return wrap(ExitCode.notFound);
  }
  if (CheckpointNotPendingError.isInstance(error) || ToolCallNotPendingError.isInstance(error)) {
    return wrap(ExitCode.notPending);
  }
  if (ApprovalKeyError.isInstance(error)) return wrap(ExitCode.badKey);
  if (
    CheckpointDecisionError.isInstance(error) ||
    ToolApprovalDecisionError.isInstance(error) ||
    InvalidSessionIdError.isInstance(error)
  ) {
    return wrap(ExitCode.usage);
  }
  if (SnapshotError.isInstance(error)) return wrap(ExitCode.corrupt);
  return error;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
