export {
  ToolApprovalDecisionError,
  ToolCallNotPendingError,
  UnknownToolCallError,
} from './errors.js';
export { approveToolCall, denyToolCall, hasToolApproval } from './supervisor.js';
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
} from './types.js';
