import { createPublicKey } from 'node:crypto';
import { produce } from 'immer';
import { restoreSnapshotState } from '../../persistence/restore.js';
import { createSnapshot } from '../../persistence/snapshot.js';
import type { SessionStore } from '../../persistence/store.js';
import { updateSession } from '../../persistence/update-session.js';
import { createInitialState, type SessionState } from '../../state/session-state.js';
import { UnknownSessionError } from './errors.js';
import { applyCorrections, type Decision, decide, findCorrections } from './ledger.js';
import { resolveApprovalKey, resolveApprovalPrivateKey } from './signing.js';
import type { ApproveInput, CheckpointLedgerEntry, RejectInput } from './types.js';

/**
 * Approves a pending checkpoint of a stored session (in any process: the session need not be
 * running). Signed with `key` (default `AGATE_APPROVAL_KEY`) when there is one. Throws
 * `UnknownSessionError`, `UnknownCheckpointError`, `CheckpointNotPendingError`,
 * `ApprovalKeyError`, `CheckpointDecisionError` or a `SnapshotError` (corrupt file); on any
 * error nothing in the store changes. `createSession(element, { snapshot: await
 * store.load(id) })` then continues the session past the checkpoint.
 */
export async function approveCheckpoint(
  store: SessionStore,
  sessionId: string,
  checkpointId: string,
  input: ApproveInput,
): Promise<CheckpointLedgerEntry> {
  const decision: Decision = {
    kind: 'approved',
    by: input?.by,
    ...(input?.note !== undefined ? { note: input.note } : {}),
  };
  return decideStored(store, sessionId, checkpointId, decision, input);
}

/**
 * Rejects a pending checkpoint of a stored session: it is unlocked again with a fresh budget,
 * and the model's next request carries `feedback`. Errors as for `approveCheckpoint`.
 */
export async function rejectCheckpoint(
  store: SessionStore,
  sessionId: string,
  checkpointId: string,
  input: RejectInput,
): Promise<CheckpointLedgerEntry> {
  const decision: Decision = { kind: 'rejected', by: input?.by, feedback: input?.feedback };
  return decideStored(store, sessionId, checkpointId, decision, input);
}

async function decideStored(
  store: SessionStore,
  sessionId: string,
  checkpointId: string,
  decision: Decision,
  keys: Pick<ApproveInput, 'key' | 'privateKey'> | undefined,
): Promise<CheckpointLedgerEntry> {
  // The private key (key-pair mode) wins; the shared secret is the version-1 mode.
  const privateKey = resolveApprovalPrivateKey(keys?.privateKey);
  const key = privateKey === undefined ? resolveApprovalKey(keys?.key) : undefined;
  const verifier = {
    key,
    publicKey: privateKey === undefined ? undefined : createPublicKey(privateKey),
  };
  // A decision racing another (approve against reject, two supervisors) saves only over the
  // revision it read; the loser reloads once, finds the checkpoint decided, and is told by whom.
  return updateSession(store, sessionId, (snapshot) => {
    if (snapshot === undefined) throw new UnknownSessionError(sessionId);
    const restored = restoreSnapshotState<SessionState>(snapshot);
    // Snapshots from before checkpoints existed lack the fields; they start empty, as in a session.
    const state: SessionState = { ...createInitialState(restored.id), ...restored };
    let entry: CheckpointLedgerEntry | undefined;
    // `decide` checks everything before its first change; produce discards the draft if it throws.
    const next = produce(state, (draft) => {
      // As a restored session would see it: a hand-edited "approved" is pending, so it can be
      // approved properly here instead of being stuck until the session runs once. Only this
      // checkpoint: the others are the session's business (judged with its own key).
      const corrections = findCorrections(draft, state.id, verifier).filter(
        (c) => c.id === checkpointId,
      );
      applyCorrections(draft, corrections);
      entry = decide(draft, checkpointId, decision, { sessionId: state.id, key, privateKey });
    });
    return {
      snapshot: createSnapshot(
        snapshot.id,
        next,
        `${decision.kind} ${checkpointId} by ${entry!.by}`,
      ),
      result: entry!,
    };
  });
}
