import { produce } from 'immer';
import { UnknownCheckpointError, UnknownSessionError } from '../../approvals/approval-errors.js';
import { resolveDecisionKeys } from '../../approvals/approval-signing.js';
import {
  applyCorrections,
  type Decision,
  decide,
  findCorrections,
} from '../../approvals/decision-ledger.js';
import type {
  ApproveInput,
  CheckpointLedgerEntry,
  RejectInput,
} from '../../approvals/ledger-types.js';
import { childStateAt, parsePath } from '../../approvals/sub-agent-path.js';
import { withInitialState } from '../../guard-seam/initial-state.js';
import { restoreSnapshotState } from '../../persistence/restore.js';
import type { SessionStore } from '../../persistence/session-store.js';
import { createSnapshot } from '../../persistence/snapshot.js';
import { updateSession } from '../../persistence/update-session.js';
import type { SessionState } from '../../state/session-state.js';

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
  const { key, privateKey, verifier } = resolveDecisionKeys(keys);
  // A decision racing another (approve against reject, two supervisors) saves only over the
  // revision it read; the loser reloads once, finds the checkpoint decided, and is told by whom.
  return updateSession(
    store,
    sessionId,
    (snapshot) => {
      if (snapshot === undefined) throw new UnknownSessionError(sessionId);
      const restored = restoreSnapshotState<SessionState>(snapshot);
      // Snapshots from before checkpoints existed lack the fields; they start empty, as in a session.
      const state: SessionState = withInitialState(restored);
      let entry: CheckpointLedgerEntry | undefined;
      // `reviewer#call_3 › T-1`: a checkpoint inside a running sub-agent, whose state is part of
      // this session's; decided there, signed with the child's id, saved with the parent.
      const nested = parsePath(checkpointId);
      if (nested !== undefined) {
        const found = childStateAt(state, nested.segments);
        if (!found.ok) throw new UnknownCheckpointError(checkpointId, sessionId, [found.problem]);
      }
      // `decide` checks everything before its first change; produce discards the draft if it throws.
      const next = produce(state, (draft) => {
        let target: SessionState = draft as SessionState;
        let id = checkpointId;
        if (nested !== undefined) {
          const at = childStateAt(draft as SessionState, nested.segments);
          if (!at.ok) return;
          target = at.state;
          id = nested.leaf;
        }
        // As a restored session would see it: a hand-edited "approved" is pending, so it can be
        // approved properly here instead of being stuck until the session runs once. Only this
        // checkpoint: the others are the session's business (judged with its own key).
        const corrections = findCorrections(target, target.id, verifier).filter((c) => c.id === id);
        applyCorrections(target, corrections);
        entry = decide(target, id, decision, { sessionId: target.id, key, privateKey });
      });
      return {
        snapshot: createSnapshot(
          snapshot.id,
          next,
          `${decision.kind} ${checkpointId} by ${entry!.by}`,
        ),
        result: entry!,
      };
    },
    { decision: true },
  );
}
