import type { KeyObject } from 'node:crypto';
import type { ModelMessage } from 'ai';

/** The guard family's name (events, refusals, `tool:refused.by`). */
export const APPROVALS_FAMILY = 'approvals';

/** What a `needsApproval` function is given besides the call's validated input. */
export interface NeedsApprovalContext {
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
 * One held call in `SessionState.toolApprovals`, from the model's call until its result is in
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
  reason: string;
}

declare module '../../components/tool.js' {
  interface ToolGuardProps<I, O> {
    /**
     * A person approves each call before it runs (see docs/approvals.md): `true`, or a function
     * of the validated input. The run ends `awaiting-approval` with the call in
     * `RunResult.pendingApprovals`. For a ready AI SDK `tool`, its own `needsApproval` is used
     * when this is not given.
     */
    needsApproval?: NeedsApproval<I>;
  }
}

declare module '../../state/session-state.js' {
  interface GuardStates {
    /** Tool calls held for a person's approval (`state.guards.approvals`). */
    approvals: ApprovalsState;
  }
}

/** The approvals family's slice of the state. */
export interface ApprovalsState {
  /** Tool calls held for a person's approval (`needsApproval`), until their result is in the timeline. */
  calls: ToolApprovalRecord[];
}

declare module '../../runtime/session-options.js' {
  interface GuardRunReport {
    /**
     * Tool calls waiting for a person's decision (`<Tool needsApproval>`), in call order: the run
     * ended `awaiting-approval` (or was aborted while they waited). Empty when none waits.
     */
    pendingApprovals: PendingToolApproval[];
  }
}

declare module '../../runtime/events.js' {
  interface GuardEventMap {
    /**
     * A guard held the call: not executed and not answered this tick, because a person must
     * decide first (`needsApproval`). The run ends `awaiting-approval` at the tick's end.
     */
    'tool:held': {
      tick: number;
      toolCallId: string;
      toolName: string;
      input: unknown;
      /** The guard family that held it (`approvals`). */
      by: string;
      reason: string;
    };
    /** A person approved a held call (`session.approveToolCall`); the next run executes it. */
    'tool:approved': { tick: number; toolCallId: string; by: string; reason?: string };
    /** A person denied a held call; the next run answers it with the denial. */
    'tool:denied': { tick: number; toolCallId: string; by: string; reason: string };
  }
}
