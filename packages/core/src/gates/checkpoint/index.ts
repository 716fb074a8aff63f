export { Checkpoint } from './checkpoint.js';
export {
  ApprovalKeyError,
  CheckpointDecisionError,
  CheckpointDeclarationError,
  CheckpointNotPendingError,
  MissingApprovalKeyError,
  UnknownCheckpointError,
  UnknownSessionError,
} from './errors.js';
export {
  APPROVAL_KEY_ENV,
  APPROVAL_KEY_FILE_ENV,
  APPROVAL_PUBLIC_KEY_ENV,
  generateApprovalKeyPair,
  publicKeyId,
} from './signing.js';
export { SUBMIT_CHECKPOINT_TOOL } from './submit-tool.js';
export { approveCheckpoint, rejectCheckpoint } from './supervisor.js';
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
} from './types.js';
