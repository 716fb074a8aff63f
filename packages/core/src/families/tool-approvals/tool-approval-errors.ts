import { AgateError, nameErrorClass } from '../../ground/agate-error.js';

/** The session holds no tool call with that id waiting for (or given) a decision. */
export class UnknownToolCallError extends AgateError {
  static {
    nameErrorClass(UnknownToolCallError, 'UnknownToolCallError');
  }
  /** The id no held tool call has. */
  readonly toolCallId: string;
  constructor(toolCallId: string, sessionId: string, pending: readonly string[]) {
    super(
      `Session "${sessionId}" has no tool call "${toolCallId}" put up for approval. ` +
        (pending.length > 0
          ? `Calls waiting for a decision: ${pending.map((p) => `"${p}"`).join(', ')}.`
          : 'No tool call waits for a decision.'),
    );
    this.toolCallId = toolCallId;
  }
}

/** Only a pending call can be approved or denied (a decided one waits for the next run). */
export class ToolCallNotPendingError extends AgateError {
  static {
    nameErrorClass(ToolCallNotPendingError, 'ToolCallNotPendingError');
  }
  /** The tool call that was decided on. */
  readonly toolCallId: string;
  /** Its state instead of held. */
  readonly state: string;
  /** Who decided it (`approved` or `denied`), when it was decided. */
  readonly decidedBy?: string;
  constructor(
    toolCallId: string,
    state: string,
    detail?: string,
    decided?: { by: string; at?: string; seq?: number },
  ) {
    // Who decided comes first: after a race it is what the losing supervisor needs to know.
    const who =
      decided === undefined
        ? ''
        : `Tool call "${toolCallId}" was already ${state} by ${decided.by}` +
          `${decided.at === undefined ? '' : ` at ${decided.at}`}` +
          `${decided.seq === undefined ? '' : ` (ledger entry #${decided.seq})`}. `;
    super(
      `${who}Tool call "${toolCallId}" is ${state}, not pending: only a call waiting for a decision can be approved or denied.${
        detail === undefined ? '' : ` ${detail}`
      }`,
    );
    this.toolCallId = toolCallId;
    this.state = state;
    if (decided !== undefined) this.decidedBy = decided.by;
  }
}

/** A decision without a name (`by`), or a denial without a reason. */
export class ToolApprovalDecisionError extends AgateError {
  static {
    nameErrorClass(ToolApprovalDecisionError, 'ToolApprovalDecisionError');
  }
}
