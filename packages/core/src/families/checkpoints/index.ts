export {
  APPROVAL_KEY_ENV,
  APPROVAL_KEY_FILE_ENV,
  APPROVAL_PUBLIC_KEY_ENV,
  generateApprovalKeyPair,
  publicKeyId,
} from './approval-signing.js';
export { approveCheckpoint, rejectCheckpoint } from './approve-checkpoint.js';
export { Checkpoint } from './checkpoint.js';
export {
  ApprovalKeyError,
  CheckpointDecisionError,
  CheckpointDeclarationError,
  CheckpointNotPendingError,
  MissingApprovalKeyError,
  UnknownCheckpointError,
  UnknownSessionError,
} from './checkpoint-errors.js';
export {
  type ApproveInput,
  type CheckpointCause,
  type CheckpointLedgerEntry,
  type CheckpointLedgerKind,
  type CheckpointProps,
  type CheckpointRecord,
  type CheckpointStatus,
  type CheckpointsState,
  type CheckpointTrigger,
  DEFAULT_CHECKPOINT_BUDGET,
  type FileBaseline,
  type RejectInput,
} from './checkpoint-types.js';
export { SUBMIT_CHECKPOINT_TOOL } from './submit-checkpoint-tool.js';
