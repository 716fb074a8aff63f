import { UnknownCheckpointError } from '../../approvals/approval-errors.js';
import { decideStored } from '../../approvals/decide-stored.js';
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
import type { SessionStore } from '../../persistence/session-store.js';

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
  return decideCheckpoint(store, sessionId, checkpointId, decision, input);
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
  return decideCheckpoint(store, sessionId, checkpointId, decision, input);
}

/** One checkpoint decision in the store (a nested `reviewer#call_3 › T-1` one too). */
function decideCheckpoint(
  store: SessionStore,
  sessionId: string,
  checkpointId: string,
  decision: Decision,
  keys: Pick<ApproveInput, 'key' | 'privateKey'> | undefined,
): Promise<CheckpointLedgerEntry> {
  // `reviewer#call_3 › T-1`: a checkpoint inside a running sub-agent, whose state is part of
  // this session's; decided there, signed with the child's id, saved with the parent.
  const nested = parsePath(checkpointId);
  return decideStored(
    store,
    sessionId,
    keys,
    (draft, state, { key, privateKey, verifier }) => {
      let target = draft;
      let id = checkpointId;
      if (nested !== undefined) {
        const found = childStateAt(state, nested.segments);
        if (!found.ok) throw new UnknownCheckpointError(checkpointId, sessionId, [found.problem]);
        const at = childStateAt(draft, nested.segments);
        if (!at.ok) throw new UnknownCheckpointError(checkpointId, sessionId, [at.problem]);
        target = at.state;
        id = nested.leaf;
      }
      // As a restored session would see it: a hand-edited "approved" is pending, so it can be
      // approved properly here instead of being stuck until the session runs once. Only this
      // checkpoint: the others are the session's business (judged with its own key).
      const corrections = findCorrections(target, target.id, verifier).filter((c) => c.id === id);
      applyCorrections(target, corrections);
      // `decide` checks everything before its first change; nothing is saved if it throws.
      return decide(target, id, decision, { sessionId: target.id, key, privateKey });
    },
    (entry) => `${decision.kind} ${checkpointId} by ${entry.by}`,
  );
}
