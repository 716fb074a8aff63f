import {
  type ApprovalVerifier,
  newNonce,
  verifies,
  verifyWith,
} from '../../approvals/approval-signing.js';
import {
  allLedgerEntries,
  appendTo,
  checkKey,
  lastDecision,
  namesRequest,
  type SigningContext,
  TOOL_DECISIONS,
  toolLedgerOf,
} from '../../approvals/decision-ledger.js';
import { decisionTextProblem } from '../../approvals/decision-text.js';
import type { ToolCallLedgerEntry, ToolLedgerEntry } from '../../approvals/ledger-types.js';
import type { GuardStates, SessionState } from '../../state/session-state.js';
import { canonicalJson } from '../../state/update.js';
import {
  ToolApprovalDecisionError,
  ToolCallNotPendingError,
  UnknownToolCallError,
} from './tool-approval-errors.js';
import type { PendingToolApproval, ToolApprovalRecord } from './tool-approval-types.js';

// node:crypto taken when first used (not at import), as ground/builtins.ts does inside the
// runtime; this is family code, which imports only the public API.
const nodeCrypto = (): typeof import('node:crypto') => process.getBuiltinModule('node:crypto');

/**
 * Single tool-call approvals over plain session state: pure functions that immer drafts go
 * through, shared by the live session (`session.approveToolCall`) and by `approveToolCall` on a
 * stored snapshot. Requests, decisions and executions go into the tool-call ledger
 * (`state.guards.approvals.ledger`), numbered and signed as its own.
 */

export type ApprovalState = Pick<SessionState, 'id' | 'tick' | 'status' | 'reason'> & {
  guards: Pick<GuardStates, 'checkpoints' | 'approvals'>;
};

/** What the checks of restored decisions read: the ledger, the held calls and the timeline. */
type LedgerAndTimeline = Pick<SessionState, 'timeline'> & {
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

export function inCallOrder<R extends Pick<ToolApprovalRecord, 'tick' | 'index'>>(
  records: readonly R[],
): R[] {
  return [...records].sort((a, b) => a.tick - b.tick || a.index - b.index);
}

/** sha256 of the tool name and the input (canonical JSON): what a decision is bound to. */
export function callHash(toolName: string, input: unknown): string {
  return nodeCrypto()
    .createHash('sha256')
    .update(JSON.stringify([toolName, canonicalJson(input)]))
    .digest('hex');
}

/** Appends an entry to the tool-call ledger and returns it. */
export function appendToolEntry(
  state: { guards: Pick<GuardStates, 'approvals'> },
  entry: Omit<ToolLedgerEntry, 'seq' | 'at'>,
  signing: SigningContext,
): ToolLedgerEntry {
  if (!Array.isArray(state.guards.approvals.ledger)) state.guards.approvals.ledger = [];
  return appendTo('tool-calls', state.guards.approvals.ledger, entry, signing);
}

/** Holds a call for approval: its record (pending) and the ledger's request entry. */
export function requestApproval(
  state: ApprovalState,
  call: PendingToolApproval & { index: number; reason?: string },
  signing: SigningContext,
): ToolLedgerEntry {
  if (!Array.isArray(state.guards.approvals.calls)) state.guards.approvals.calls = [];
  const { id, toolName, input, tick, index } = call;
  state.guards.approvals.calls.push({ id, toolName, input, tick, index, state: 'pending' });
  return appendToolEntry(
    state,
    {
      checkpoint: id,
      kind: 'tool-approval-request',
      by: 'runtime',
      tick,
      toolName,
      inputHash: callHash(toolName, input),
      ...(call.reason !== undefined ? { reason: call.reason } : {}),
      nonce: newNonce(),
    },
    signing,
  );
}

/**
 * The entry that spent the approval of the call's latest request (`request`): the runtime's
 * `tool-executed`, written when the approved call ran. Any later one for the id belongs to it,
 * since a newer call under the same id comes with a newer request.
 */
export function executionOf(
  ledger: readonly ToolLedgerEntry[],
  request: ToolLedgerEntry,
): ToolLedgerEntry | undefined {
  return ledger.find(
    (e) => e.kind === 'tool-executed' && e.checkpoint === request.checkpoint && e.seq > request.seq,
  );
}

/** The decision (approval or denial) answering `request`, the latest if there are several. */
function decisionOn(
  ledger: readonly ToolLedgerEntry[],
  request: ToolLedgerEntry,
): ToolLedgerEntry | undefined {
  return ledger.findLast(
    (e) =>
      e.checkpoint === request.checkpoint &&
      TOOL_DECISIONS.includes(e.kind) &&
      e.answers === request.seq &&
      e.seq > request.seq,
  );
}

/**
 * Spends an approval as its call runs: the ledger's `tool-executed` entry names the request and
 * answers the approval, so a record put back as `approved` later is refused (one approval, one
 * execution). Returns the entry, or undefined when the ledger holds no approval to spend.
 */
export function recordExecution(
  state: ApprovalState,
  id: string,
  tick: number,
  signing: SigningContext,
): ToolLedgerEntry | undefined {
  const ledger = toolLedgerOf(state);
  const request = latestApprovalRequest(ledger, id);
  if (request === undefined) return undefined;
  const approval = decisionOn(ledger, request);
  if (approval === undefined || approval.kind !== 'tool-approved') return undefined;
  return appendToolEntry(
    state,
    {
      checkpoint: id,
      kind: 'tool-executed',
      by: 'runtime',
      tick,
      ...(request.toolName !== undefined ? { toolName: request.toolName } : {}),
      ...(request.inputHash !== undefined ? { inputHash: request.inputHash } : {}),
      ...(request.nonce !== undefined ? { nonce: request.nonce } : {}),
      answers: approval.seq,
    },
    signing,
  );
}

/** The latest call of each id in the timeline, and whether a result followed it. */
export interface TimelineCall {
  toolName: string;
  input: unknown;
  /** Its place among the calls of its message. */
  index: number;
  answered: boolean;
}

/**
 * Each id's latest call in the timeline: some servers send the same id (`call_0`) in every
 * response, so an earlier call's result must not answer a later one.
 */
export function timelineCalls(timeline: SessionState['timeline']): Map<string, TimelineCall> {
  const calls = new Map<string, TimelineCall>();
  for (const message of timeline) {
    if (!Array.isArray(message.content)) continue;
    let index = 0;
    for (const part of message.content) {
      if (part.type === 'tool-call') {
        calls.set(part.toolCallId, {
          toolName: part.toolName,
          input: part.input,
          index: index++,
          answered: false,
        });
      } else if (part.type === 'tool-result') {
        const call = calls.get(part.toolCallId);
        if (call !== undefined) call.answered = true;
      }
    }
  }
  return calls;
}

/**
 * Why a held call's request is used up, or undefined: the ledger says its approval was spent
 * (the call ran), or the timeline already holds the call's result. Either way it must not run
 * (or be answered) again.
 */
function spentProblem(
  ledger: readonly ToolLedgerEntry[],
  calls: ReadonlyMap<string, TimelineCall>,
  id: string,
): string | undefined {
  const request = latestApprovalRequest(ledger, id);
  const executed = request === undefined ? undefined : executionOf(ledger, request);
  if (executed !== undefined) {
    return `its approval (ledger entry ${String(executed.answers)}) was spent when the call ran at tick ${executed.tick} (ledger entry ${executed.seq})`;
  }
  if (calls.get(id)?.answered === true) {
    return 'its call already has a result in the timeline (it ran, or was answered)';
  }
  return undefined;
}

/** The request entry a decision on `id` answers: the latest for that call. */
export function latestApprovalRequest(
  ledger: readonly ToolLedgerEntry[],
  id: string,
): ToolLedgerEntry | undefined {
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
): ToolCallLedgerEntry {
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
  const textProblem = decisionTextProblem('`by`', by) ?? decisionTextProblem('`reason`', reason);
  if (textProblem !== undefined) {
    throw new ToolApprovalDecisionError(`Deciding tool call "${id}": ${textProblem}`);
  }
  const records = approvalsOf(state);
  const record = records.find((r) => r.id === id);
  const ledger = toolLedgerOf(state);
  const asked = latestApprovalRequest(ledger, id);
  const executed = asked === undefined ? undefined : executionOf(ledger, asked);
  if (executed !== undefined) {
    const approval = ledger.find((e) => e.seq === executed.answers);
    const by = approval === undefined ? '' : ` by ${approval.by} (ledger entry #${approval.seq})`;
    throw new ToolCallNotPendingError(
      id,
      'executed',
      `It was approved${by} and ran at tick ${executed.tick} (ledger entry #${executed.seq}): an approval authorizes one execution, so to run it again the model must call the tool again.`,
    );
  }
  if (record === undefined) {
    throw new UnknownToolCallError(
      id,
      state.id,
      records.filter((r) => r.state === 'pending').map((r) => r.id),
    );
  }
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
  checkKey(allLedgerEntries(state), signing, state.id);

  const entry = appendToolEntry(
    state,
    {
      checkpoint: id,
      kind: decision.approved ? 'tool-approved' : 'tool-denied',
      by,
      tick: state.tick,
      ...(reason !== '' ? { reason } : {}),
      answers: request.seq,
      // Names the request it answers: the tool, the input's digest, the request's nonce.
      toolName: request.toolName ?? record.toolName,
      ...(request.inputHash !== undefined ? { inputHash: request.inputHash } : {}),
      ...(request.nonce !== undefined ? { nonce: request.nonce } : {}),
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
  // Its kind was set to a tool decision above.
  return entry as ToolCallLedgerEntry;
}

export interface ApprovalCorrection {
  id: string;
  from: ToolApprovalRecord['state'];
  /**
   * `held`: the decision is not proven, so the call is pending again (a person decides).
   * `refused`: the call's approval was spent or its call already answered: the record is
   * dropped and the call never runs again.
   */
  outcome: 'held' | 'refused';
  why: string;
}

/**
 * Checks a restored state's held calls against the ledger and the timeline. A decision counts
 * only when the ledger holds it, naming the call's latest request (its seq, nonce, tool and
 * input), and (with a key) validly signed: a hand-edited or copied decision leaves the call
 * pending. A call whose approval was spent (the ledger's `tool-executed`) or that already has a
 * result in the timeline is refused, whatever its record says: one approval, one execution.
 */
export function findApprovalCorrections(
  state: LedgerAndTimeline,
  sessionId: string,
  verifier: ApprovalVerifier,
): ApprovalCorrection[] {
  const ledger = toolLedgerOf(state);
  const records = approvalsOf(state);
  if (records.length === 0) return [];
  const calls = timelineCalls(state.timeline);
  const corrections: ApprovalCorrection[] = [];
  for (const record of records) {
    const spent = spentProblem(ledger, calls, record.id);
    if (spent !== undefined) {
      corrections.push({ id: record.id, from: record.state, outcome: 'refused', why: spent });
      continue;
    }
    if (record.state !== 'approved' && record.state !== 'denied') continue;
    const why = decisionProblem(ledger, record, sessionId, verifier);
    if (why !== undefined) {
      corrections.push({ id: record.id, from: record.state, outcome: 'held', why });
    }
  }
  return corrections;
}

function decisionProblem(
  ledger: readonly ToolLedgerEntry[],
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
  const decision = decisionOn(ledger, request);
  if (decision === undefined || decision.kind !== kind) {
    return `its ledger has no ${record.state === 'approved' ? 'approval' : 'denial'} answering its request`;
  }
  if (verifies(verifier)) {
    const check = verifyWith(verifier, sessionId, decision, request, 'tool-calls');
    if (!check.ok) return `its decision (ledger entry ${decision.seq}): ${check.why}`;
  }
  // After the signature, which covers all of it: where nothing is signed this still holds.
  const mismatch = namesRequest(decision, request);
  if (mismatch !== undefined) return `its decision (ledger entry ${decision.seq}) ${mismatch}`;
  return undefined;
}

/**
 * Held calls whose record is gone (deleted from the session file) while the ledger still has
 * their request and the timeline their call without a result: they are pending again, rebuilt
 * from the timeline, so the call is neither run unapproved nor left without a result. A call
 * whose approval was already spent is not rebuilt (see `findSpentUnanswered`).
 */
export function findOrphanedRequests(state: LedgerAndTimeline): ToolApprovalRecord[] {
  return unansweredRequests(state)
    .filter((u) => u.executed === undefined)
    .map(({ executed: _e, ...record }) => record);
}

/**
 * Calls whose approval was spent (they ran) but whose result is missing from the timeline, and
 * that no record holds: the result was removed from the session file. They are answered with
 * an error the model reads, never run again.
 */
export function findSpentUnanswered(
  state: LedgerAndTimeline,
): Array<ToolApprovalRecord & { executed: ToolLedgerEntry }> {
  return unansweredRequests(state).filter(
    (u): u is ToolApprovalRecord & { executed: ToolLedgerEntry } => u.executed !== undefined,
  );
}

/** Calls the timeline has without a result, the ledger a request for, and no record holds. */
function unansweredRequests(
  state: LedgerAndTimeline,
): Array<ToolApprovalRecord & { executed: ToolLedgerEntry | undefined }> {
  const ledger = toolLedgerOf(state);
  // Most sessions never held a call: their timeline is not read.
  if (!ledger.some((e) => e.kind === 'tool-approval-request')) return [];
  const known = new Set(approvalsOf(state).map((r) => r.id));
  const found: Array<ToolApprovalRecord & { executed: ToolLedgerEntry | undefined }> = [];
  for (const [id, call] of timelineCalls(state.timeline)) {
    if (known.has(id) || call.answered) continue;
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
    found.push({
      id,
      toolName: call.toolName,
      input: call.input,
      index: call.index,
      tick: request.tick,
      state: 'pending',
      executed: executionOf(ledger, request),
    });
  }
  return found;
}

/** Applies corrections to a draft: each call is pending again, or (refused) its record is gone. */
export function applyApprovalCorrections(
  state: ApprovalState,
  corrections: readonly ApprovalCorrection[],
): void {
  for (const c of corrections) {
    if (c.outcome === 'refused') {
      state.guards.approvals.calls = state.guards.approvals.calls.filter((r) => r.id !== c.id);
      continue;
    }
    const record = state.guards.approvals.calls.find((r) => r.id === c.id);
    if (record === undefined) continue;
    record.state = 'pending';
    delete record.by;
    delete record.reason;
    record.unverified = c.why;
  }
}
