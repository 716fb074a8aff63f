import type { KeyObject } from 'node:crypto';
import type { ModelMessage } from 'ai';
import type { ToolLedgerEntry } from '../../approvals/ledger-types.js';

/** The guard family's name (events, refusals, `tool:refused.by`). */
export const APPROVALS_FAMILY = 'approvals';

/** What a `needsApproval` function is given besides the call's validated input. */
export interface NeedsApprovalContext {
  /** The call's id: what `session.approveToolCall` takes. */
  toolCallId: string;
  /** The tick the call was made in (1-based, over the session's life). */
  tick: number;
  /** The timeline as it was when the model was called (as the AI SDK's `messages`). */
  messages: readonly ModelMessage[];
}

/**
 * `<Tool needsApproval>`: `true` puts every call of the tool up for a person's approval; a
 * function decides per call from the validated input (as the AI SDK's `tool({ needsApproval })`).
 */
export type NeedsApproval<I = never> =
  | boolean
  | ((input: I, context: NeedsApprovalContext) => boolean | PromiseLike<boolean>);

/**
 * A tool call waiting for a person (`RunResult.pendingApprovals`): the AI SDK's tool approval
 * request. `id` is the tool call's id (and the approval's id).
 */
export interface PendingToolApproval {
  id: string;
  toolName: string;
  input: unknown;
  /** The tick the model made the call in. */
  tick: number;
}

export type ToolApprovalState = 'pending' | 'approved' | 'denied';

/**
 * One held call in `state.guards.approvals.calls`, from the model's call until its result is in
 * the timeline (then it is removed; the ledger keeps the request and the decision).
 */
export interface ToolApprovalRecord extends PendingToolApproval {
  state: ToolApprovalState;
  /** Its place among the calls of its tick (results enter the timeline in call order). */
  index: number;
  /** Decided: who decided. */
  by?: string;
  /** Decided: why (required for a denial, optional for an approval). */
  reason?: string;
  /** Set when the restored session did not accept a recorded decision: why. */
  unverified?: string;
}

/** `session.approveToolCall(id, …)`: the AI SDK's tool approval response with `approved: true`. */
export interface ToolApprovalInput {
  /** Who approves (recorded and signed). */
  by: string;
  /** Why, recorded with the approval. */
  reason?: string;
  /** Shared-secret signing key (HMAC); default `AGATE_APPROVAL_KEY`. Cross-process calls only. */
  key?: string;
  /**
   * The approver's Ed25519 private key (PEM text, a PEM file path or a `KeyObject`); default the
   * file named by `AGATE_APPROVAL_KEY_FILE` (cross-process calls). Wins over `key`.
   */
  privateKey?: string | KeyObject;
}

/** `session.denyToolCall(id, …)`: `reason` is required; the model is told it. */
export interface ToolDenialInput extends ToolApprovalInput {
  /** Why: the model reads it as the call's answer. */
  reason: string;
}

/** The approvals family's slice of the state. */
export interface ApprovalsState {
  /** Tool calls held for a person's approval (`needsApproval`), until their result is in the timeline. */
  calls: ToolApprovalRecord[];
  /**
   * The tool-call ledger, oldest first: every held call's request, each decision on it and each
   * execution that spent an approval. Numbered and signed on its own (checkpoints have theirs).
   */
  ledger: ToolLedgerEntry[];
}
