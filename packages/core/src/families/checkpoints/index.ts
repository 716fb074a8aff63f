export {
  ApprovalKeyError,
  CheckpointDecisionError,
  CheckpointNotPendingError,
  MissingApprovalKeyError,
  UnknownCheckpointError,
  UnknownSessionError,
} from '../../approvals/approval-errors.js';
export {
  APPROVAL_KEY_ENV,
  APPROVAL_KEY_FILE_ENV,
  APPROVAL_PUBLIC_KEY_ENV,
  generateApprovalKeyPair,
  publicKeyId,
} from '../../approvals/approval-signing.js';
export type {
  ApproveInput,
  CheckpointCause,
  CheckpointLedgerEntry,
  CheckpointLedgerKind,
  CheckpointRecord,
  CheckpointStatus,
  CheckpointsState,
  FileBaseline,
  RejectInput,
} from '../../approvals/ledger-types.js';
export { approveCheckpoint, rejectCheckpoint } from './approve-checkpoint.js';
export { Checkpoint } from './checkpoint.js';
export { CheckpointDeclarationError } from './checkpoint-errors.js';
export {
  type CheckpointProps,
  type CheckpointTrigger,
  DEFAULT_CHECKPOINT_BUDGET,
} from './checkpoint-types.js';
export { SUBMIT_CHECKPOINT_TOOL } from './submit-checkpoint-tool.js';
