import { decideStored } from '../../approvals/decide-stored.js';
import type { ToolCallLedgerEntry } from '../../approvals/ledger-types.js';
import type { SessionStore } from '../../persistence/session-store.js';
import type { GuardStates } from '../../state/session-state.js';
import {
  applyApprovalCorrections,
  decideToolCall,
  findApprovalCorrections,
  findOrphanedRequests,
  type ToolCallDecision,
} from './approval-ledger.js';
import type { ToolApprovalInput, ToolDenialInput } from './tool-approval-types.js';

/**
 * Approves a tool call held for approval in a stored session (from any process: the session
 * need not be running). Signed as checkpoint decisions are: with `privateKey` (default the file
 * named by `AGATE_APPROVAL_KEY_FILE`), else `key` (default `AGATE_APPROVAL_KEY`). Throws
 * `UnknownSessionError`, `UnknownToolCallError`, `ToolCallNotPendingError`, `ApprovalKeyError`,
 * `ToolApprovalDecisionError` or a `SnapshotError`; on any error nothing in the store changes.
 * The session's next `run()` (restored from the store) executes the call, then calls the model.
 */
export async function approveToolCall(
  store: SessionStore,
  sessionId: string,
  toolCallId: string,
  input: ToolApprovalInput,
): Promise<ToolCallLedgerEntry> {
  const decision: ToolCallDecision = {
    approved: true,
    by: input?.by,
    ...(input?.reason !== undefined ? { reason: input.reason } : {}),
  };
  return decideCall(store, sessionId, toolCallId, decision, input);
}

/** Denies a held tool call of a stored session: the model is told who denied it and why. */
export async function denyToolCall(
  store: SessionStore,
  sessionId: string,
  toolCallId: string,
  input: ToolDenialInput,
): Promise<ToolCallLedgerEntry> {
  const decision: ToolCallDecision = { approved: false, by: input?.by, reason: input?.reason };
  return decideCall(store, sessionId, toolCallId, decision, input);
}

/**
 * True when the stored session holds a tool call with this id put up for approval, or its
 * ledger ever asked for one (a call that already ran: deciding it again is refused by name).
 */
export function hasToolApproval(
  state: { guards: Partial<Pick<GuardStates, 'approvals'>> },
  id: string,
): boolean {
  const calls = state.guards.approvals?.calls;
  if (Array.isArray(calls) && calls.some((r) => r?.id === id)) return true;
  const ledger = state.guards.approvals?.ledger;
  return (
    Array.isArray(ledger) &&
    ledger.some((e) => e?.kind === 'tool-approval-request' && e.checkpoint === id)
  );
}

/** One held tool call's decision in the store. */
function decideCall(
  store: SessionStore,
  sessionId: string,
  toolCallId: string,
  decision: ToolCallDecision,
  keys: Pick<ToolApprovalInput, 'key' | 'privateKey'> | undefined,
): Promise<ToolCallLedgerEntry> {
  const verb = decision.approved ? 'approved' : 'denied';
  return decideStored(
    store,
    sessionId,
    keys,
    (draft, state, { key, privateKey, verifier }) => {
      // A held call whose record was removed from the file is pending again (as the session sees it).
      draft.guards.approvals.calls.push(
        ...findOrphanedRequests(state).filter((o) => o.id === toolCallId),
      );
      // As the restored session would see it: an unproven decision on this call is pending
      // again, so it can be decided properly here.
      const corrections = findApprovalCorrections(draft, state.id, verifier).filter(
        (c) => c.id === toolCallId,
      );
      applyApprovalCorrections(draft, corrections);
      return decideToolCall(draft, toolCallId, decision, { sessionId: state.id, key, privateKey });
    },
    (entry) => `${verb} tool call ${toolCallId} by ${entry.by}`,
  );
}
