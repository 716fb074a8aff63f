import { createHash } from 'node:crypto';
import type { GuardStates, SessionState } from '../../state/session-state.js';
import { canonicalJson } from '../../state/update.js';
import {
  appendEntry,
  checkKey,
  lastDecision,
  ledgerOf,
  type SigningContext,
  TOOL_DECISIONS,
} from '../checkpoint/ledger.js';
import { type ApprovalVerifier, verifies, verifyWith } from '../checkpoint/signing.js';
import type { CheckpointLedgerEntry } from '../checkpoint/types.js';
import {
  ToolApprovalDecisionError,
  ToolCallNotPendingError,
  UnknownToolCallError,
} from './errors.js';
import type { PendingToolApproval, ToolApprovalRecord } from './types.js';

/**
 * Single tool-call approvals over plain session state: pure functions that immer drafts go
 * through, shared by the live session (`session.approveToolCall`) and by `approveToolCall` on a
 * stored snapshot. Requests and decisions go into the checkpoint ledger, signed the same way.
 */

export type ApprovalState = Pick<SessionState, 'id' | 'tick' | 'status' | 'reason'> & {
  guards: Pick<GuardStates, 'checkpoints' | 'approvals'>;
};

/** Records, tolerating a hand-edited snapshot where the field is missing or not an array. */
export function approvalsOf(state: {
  guards: Pick<GuardStates, 'approvals'>;
}): ToolApprovalRecord[] {
  const records = state.guards.approvals.calls as unknown;
  return Array.isArray(records)
    ? records.filter(
        (r): r is ToolApprovalRecord =>
          typeof r === 'object' && r !== null && typeof (r as ToolApprovalRecord).id === 'string',
      )
    : [];
}

/** The pending calls, in call order (what `RunResult.pendingApprovals` lists). */
export function pendingApprovals(state: {
  guards: Pick<GuardStates, 'approvals'>;
}): PendingToolApproval[] {
  return inCallOrder(approvalsOf(state).filter((r) => r.state === 'pending')).map(
    ({ id, toolName, input, tick }) => ({ id, toolName, input, tick }),
  );
}

export function inCallOrder(records: readonly ToolApprovalRecord[]): ToolApprovalRecord[] {
  return [...records].sort((a, b) => a.tick - b.tick || a.index - b.index);
}

/** sha256 of the tool name and the input (canonical JSON): what a decision is bound to. */
export function callHash(toolName: string, input: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([toolName, canonicalJson(input)]))
    .digest('hex');
}

/** Holds a call for approval: its record (pending) and the ledger's request entry. */
export function requestApproval(
  state: ApprovalState,
  call: PendingToolApproval & { index: number; reason?: string },
  signing: SigningContext,
): CheckpointLedgerEntry {
  if (!Array.isArray(state.guards.approvals.calls)) state.guards.approvals.calls = [];
  const { id, toolName, input, tick, index } = call;
  state.guards.approvals.calls.push({ id, toolName, input, tick, index, state: 'pending' });
  return appendEntry(
    state,
    {
      checkpoint: id,
      kind: 'tool-approval-request',
      by: 'runtime',
      tick,
      toolName,
      inputHash: callHash(toolName, input),
      ...(call.reason !== undefined ? { reason: call.reason } : {}),
    },
    signing,
  );
}

/** The request entry a decision on `id` answers: the latest for that call. */
export function latestApprovalRequest(
  ledger: readonly CheckpointLedgerEntry[],
  id: string,
): CheckpointLedgerEntry | undefined {
  for (let i = ledger.length - 1; i >= 0; i--) {
    const entry = ledger[i]!;
    if (entry.checkpoint === id && entry.kind === 'tool-approval-request') return entry;
  }
  return undefined;
}

export type ToolCallDecision =
  | { approved: true; by: string; reason?: string }
  | { approved: false; by: string; reason: string };

/**
 * Approves or denies a held call. Every check comes before the first change, so a refused
 * decision leaves the state as it was. When nothing waits for a person any more (no call, no
 * checkpoint), a session that ended `awaiting-approval` becomes `idle`.
 */
export function decideToolCall(
  state: ApprovalState,
  id: string,
  decision: ToolCallDecision,
  signing: SigningContext,
): CheckpointLedgerEntry {
  const verb = decision.approved ? 'approves' : 'denies';
  const by = typeof decision.by === 'string' ? decision.by.trim() : '';
  if (by === '') {
    throw new ToolApprovalDecisionError(
      `Say who ${verb} tool call "${id}": \`by\` must be a non-empty name.`,
    );
  }
  const reason = typeof decision.reason === 'string' ? decision.reason.trim() : '';
  if (!decision.approved && reason === '') {
    throw new ToolApprovalDecisionError(
      `Denying tool call "${id}" needs a reason: the model is told why, so \`reason\` must be non-empty text.`,
    );
  }
  const records = approvalsOf(state);
  const record = records.find((r) => r.id === id);
  if (record === undefined) {
    throw new UnknownToolCallError(
      id,
      state.id,
      records.filter((r) => r.state === 'pending').map((r) => r.id),
    );
  }
  const ledger = ledgerOf(state);
  if (record.state !== 'pending') {
    const decided = lastDecision(ledger, id, TOOL_DECISIONS);
    throw new ToolCallNotPendingError(
      id,
      record.state,
      undefined,
      decided ?? (record.by === undefined ? undefined : { by: record.by }),
    );
  }
  const request = latestApprovalRequest(ledger, id);
  if (request === undefined || request.inputHash !== callHash(record.toolName, record.input)) {
    throw new ToolCallNotPendingError(
      id,
      'not approvable',
      request === undefined
        ? 'Its ledger holds no approval request for it; the session file may have been edited.'
        : 'Its tool name or input differs from what the agent asked for (the session file was edited).',
    );
  }
  checkKey(ledger, signing, state.id);

  const entry = appendEntry(
    state,
    {
      checkpoint: id,
      kind: decision.approved ? 'tool-approved' : 'tool-denied',
      by,
      tick: state.tick,
      ...(reason !== '' ? { reason } : {}),
      answers: request.seq,
    },
    signing,
  );
  const updated = state.guards.approvals.calls.find((r) => r.id === id)!;
  updated.state = decision.approved ? 'approved' : 'denied';
  updated.by = by;
  if (reason !== '') updated.reason = reason;
  else delete updated.reason;
  delete updated.unverified;
  const stillPending =
    state.guards.approvals.calls.some((r) => r.state === 'pending') ||
    Object.values(state.guards.checkpoints.records ?? {}).some((r) => r?.state === 'pending');
  if (!stillPending && state.status === 'awaiting-approval') {
    state.status = 'idle';
    state.reason = `Tool call "${id}" was ${decision.approved ? 'approved' : 'denied'} by ${by}; run() goes on.`;
  }
  return entry;
}

export interface ApprovalCorrection {
  id: string;
  from: 'approved' | 'denied';
  why: string;
}

/**
 * Checks a restored state's decided calls against the ledger: a decision counts only when the
 * ledger holds it, answering the call's latest request, for this tool and input, and (with a
 * key) validly signed. A hand-edited or copied decision therefore leaves the call pending.
 */
export function findApprovalCorrections(
  state: { guards: Pick<GuardStates, 'checkpoints' | 'approvals'> },
  sessionId: string,
  verifier: ApprovalVerifier,
): ApprovalCorrection[] {
  const ledger = ledgerOf(state);
  const corrections: ApprovalCorrection[] = [];
  for (const record of approvalsOf(state)) {
    if (record.state !== 'approved' && record.state !== 'denied') continue;
    const why = decisionProblem(ledger, record, sessionId, verifier);
    if (why !== undefined) corrections.push({ id: record.id, from: record.state, why });
  }
  return corrections;
}

function decisionProblem(
  ledger: readonly CheckpointLedgerEntry[],
  record: ToolApprovalRecord,
  sessionId: string,
  verifier: ApprovalVerifier,
): string | undefined {
  const request = latestApprovalRequest(ledger, record.id);
  if (request === undefined) return 'its ledger holds no approval request for it';
  if (
    request.toolName !== record.toolName ||
    request.inputHash !== callHash(record.toolName, record.input)
  ) {
    return 'its tool name or input differs from what the agent asked for';
  }
  const kind = record.state === 'approved' ? 'tool-approved' : 'tool-denied';
  const decision = ledger.findLast(
    (e) => e.checkpoint === record.id && e.answers === request.seq && e.seq > request.seq,
  );
  if (decision === undefined || decision.kind !== kind) {
    return `its ledger has no ${record.state === 'approved' ? 'approval' : 'denial'} answering its request`;
  }
  if (verifies(verifier)) {
    const check = verifyWith(verifier, sessionId, decision, request);
    if (!check.ok) return `its decision (ledger entry ${decision.seq}): ${check.why}`;
  }
  return undefined;
}

/**
 * Held calls whose record is gone (deleted from the session file) while the ledger still has
 * their request and the timeline their call without a result: they are pending again, rebuilt
 * from the timeline, so the call is neither run unapproved nor left without a result.
 */
export function findOrphanedRequests(
  state: Pick<SessionState, 'timeline'> & {
    guards: Pick<GuardStates, 'checkpoints' | 'approvals'>;
  },
): ToolApprovalRecord[] {
  const known = new Set(approvalsOf(state).map((r) => r.id));
  // Each id's latest call while no result has followed it: some servers send the same id
  // (`call_0`) in every response, so an earlier call's result must not answer a later one.
  const unanswered = new Map<string, { toolName: string; input: unknown; index: number }>();
  for (const message of state.timeline) {
    if (!Array.isArray(message.content)) continue;
    let index = 0;
    for (const part of message.content) {
      if (part.type === 'tool-call') {
        unanswered.set(part.toolCallId, {
          toolName: part.toolName,
          input: part.input,
          index: index++,
        });
      } else if (part.type === 'tool-result') {
        unanswered.delete(part.toolCallId);
      }
    }
  }
  const orphans: ToolApprovalRecord[] = [];
  const ledger = ledgerOf(state);
  for (const [id, call] of unanswered) {
    if (known.has(id)) continue;
    // The latest request for the id: an earlier one asked about an earlier call of that id.
    const request = latestApprovalRequest(ledger, id);
    if (request === undefined) continue;
    // And it must ask about this call: the same tool and input.
    if (
      request.toolName !== call.toolName ||
      request.inputHash !== callHash(call.toolName, call.input)
    ) {
      continue;
    }
    orphans.push({ id, ...call, tick: request.tick, state: 'pending' });
  }
  return orphans;
}

/** Applies corrections to a draft: each call is pending again. */
export function applyApprovalCorrections(
  state: ApprovalState,
  corrections: readonly ApprovalCorrection[],
): void {
  for (const c of corrections) {
    const record = state.guards.approvals.calls.find((r) => r.id === c.id);
    if (record === undefined) continue;
    record.state = 'pending';
    delete record.by;
    delete record.reason;
    record.unverified = c.why;
  }
}
