export { approveToolCall, denyToolCall, hasToolApproval } from './approve-tool-call.js';
export {
  ToolApprovalDecisionError,
  ToolCallNotPendingError,
  UnknownToolCallError,
} from './tool-approval-errors.js';
export {
  APPROVALS_FAMILY,
  type ApprovalsState,
  type NeedsApproval,
  type NeedsApprovalContext,
  type PendingToolApproval,
  type ToolApprovalInput,
  type ToolApprovalRecord,
  type ToolApprovalState,
  type ToolDenialInput,
} from './tool-approval-types.js';
