/**
 * A checkpoint's state. `unlocked`: the agent works on it. `pending`: it crossed the boundary
 * (submitted, or its budget or file trigger did it for it) and waits for a supervisor; no tool
 * of the agent runs and no model call is made. `approved`: done, the next one opens.
 */
export type CheckpointStatus = 'unlocked' | 'pending' | 'approved';

/** What made a checkpoint pending. */
/** `finish`: the model tried to finish (a reply with no tool call) without submitting it. */
export type CheckpointCause = 'submit' | 'budget' | 'file' | 'finish';

/** The trigger file as it was when the checkpoint opened; plain JSON, so it survives snapshots. */
export interface FileBaseline {
  /** The absolute path that was looked at. */
  path: string;
  exists: boolean;
  size?: number;
  mtimeMs?: number;
  /** sha256 of the content (so a `touch` is not a change). */
  hash?: string;
}

/** One checkpoint's record in `state.guards.checkpoints.records`, created when it first opens. */
export interface CheckpointRecord {
  state: CheckpointStatus;
  /** Ticks used while open since it opened or was last rejected (the budget counts these). */
  ticks: number;
  /** The tick it opened at (or was unlocked again by a rejection). */
  openedAtTick: number;
  /** Set while it is pending: what made it so. */
  cause?: CheckpointCause;
  /** Set while it is pending: the reason given to the supervisor and in the run's reason. */
  reason?: string;
  /** For a file trigger: the file when the checkpoint opened (taken before the first tool call). */
  baseline?: FileBaseline;
}

/**
 * What a checkpoint ledger entry records. The first four make a checkpoint pending; `approved`
 * and `rejected` decide.
 */
export type CheckpointLedgerKind =
  | 'submitted'
  | 'budget'
  | 'file'
  | 'finish'
  | 'approved'
  | 'rejected';

/**
 * What a tool-call ledger entry records: single tool calls put up for approval (`needsApproval`,
 * see families/tool-approvals): the request the runtime records, a person's decision on it, and
 * (`tool-executed`) the runtime's note that the approved call ran, which spends the approval.
 */
export type ToolLedgerKind =
  | 'tool-approval-request'
  | 'tool-approved'
  | 'tool-denied'
  | 'tool-executed';

/** Any ledger's kinds (the two ledgers' kinds do not overlap). */
export type LedgerKind = CheckpointLedgerKind | ToolLedgerKind;

/** The checkpoint ledger's kinds (`state.guards.checkpoints.ledger`). */
export const CHECKPOINT_LEDGER_KINDS: readonly CheckpointLedgerKind[] = [
  'submitted',
  'budget',
  'file',
  'finish',
  'approved',
  'rejected',
];

/** The tool-call ledger's kinds (`state.guards.approvals.ledger`). */
export const TOOL_APPROVAL_KINDS: readonly ToolLedgerKind[] = [
  'tool-approval-request',
  'tool-approved',
  'tool-denied',
  'tool-executed',
];

export function isToolApprovalKind(kind: unknown): kind is ToolLedgerKind {
  return (
    kind === 'tool-approval-request' ||
    kind === 'tool-approved' ||
    kind === 'tool-denied' ||
    kind === 'tool-executed'
  );
}

export function isCheckpointLedgerKind(kind: unknown): kind is CheckpointLedgerKind {
  return (CHECKPOINT_LEDGER_KINDS as readonly unknown[]).includes(kind);
}

/**
 * Which ledger an entry lives in, signed into every entry's payload: `checkpoints`
 * (`state.guards.checkpoints.ledger`) or `tool-calls` (`state.guards.approvals.ledger`).
 */
export type LedgerName = 'checkpoints' | 'tool-calls';

/**
 * On a tool-call entry moved out of the checkpoint ledger by the version-2 -> 3 snapshot
 * migration: the numbers it was signed with there. Its signature covers these (and the
 * checkpoint ledger's name), not its new `seq` / `answers`, so it is verified in that form;
 * the migration cannot re-sign it (it has no key).
 */
export interface SignedAs {
  /** The ledger it was signed in (version 2 kept tool-call entries in the checkpoint ledger). */
  ledger: 'checkpoints';
  /** Its `seq` there. */
  seq: number;
  /** Its `answers` there. */
  answers?: number;
}

/**
 * The fields every ledger entry has, in either ledger. Append-only. With an approval key every
 * entry is signed (HMAC-SHA256 or Ed25519); a decision's signature also covers the entry it
 * answers, so an approval cannot be moved to another checkpoint, call, session, request or ledger.
 */
export interface LedgerEntryFields {
  /** 1-based position in its ledger (each ledger numbers its own entries). */
  seq: number;
  /** The checkpoint's id; in the tool-call ledger, the tool call's id. */
  checkpoint: string;
  /** `model` (submissions), `runtime` (budget and file trips, held calls) or the person's name. */
  by: string;
  /** ISO 8601. */
  at: string;
  /** The session tick: the tick being run (submissions, trips) or the last finished one (decisions). */
  tick: number;
  /** `submitted`: the model's summary. */
  summary?: string;
  /** `budget`, `file`: why the runtime made the checkpoint pending. Tool calls: why it was held or decided. */
  reason?: string;
  /** `approved`: the supervisor's note, shown to the model. */
  note?: string;
  /** `rejected`: what to change, shown to the model. */
  feedback?: string;
  /**
   * `tool-approval-request`: the tool the call is for (signed with the decision that answers it).
   * Decisions and `tool-executed` repeat the request's, so each names what it is about.
   */
  toolName?: string;
  /** `tool-approval-request`: sha256 of the call's input (canonical JSON), so an edited input is caught. */
  inputHash?: string;
  /**
   * Requests (a submission, a trip, a held call): a random value naming this request alone.
   * A decision repeats its request's, so it answers that request and no other, even one with
   * the same id, seq and content (a session saved again under the same id). Absent on entries
   * written before it existed.
   */
  nonce?: string;
  /** Decisions: `seq` of the submission or trip they answer. `tool-executed`: of the approval it spent. */
  answers?: number;
  /**
   * Which key signed it: a short HMAC of a shared secret, or `ed25519:<hash of the public key>`.
   * On a key-pair session's own entries (which it cannot sign) it names the key that decides.
   */
  keyId?: string;
  /** HMAC-SHA256 in hex (no `alg`), or an Ed25519 signature in base64 (`alg: 'ed25519'`). */
  signature?: string;
  /** `ed25519` for the key-pair mode; absent for the shared-secret mode (version 1). */
  alg?: 'ed25519';
  /** Tool-call entries migrated from a version-2 session file: what their signature covers. */
  signedAs?: SignedAs;
}

/** One line of the checkpoint ledger (`state.guards.checkpoints.ledger`). */
export interface CheckpointLedgerEntry extends LedgerEntryFields {
  /** What happened: the checkpoint went pending (and why), or was approved or rejected. */
  kind: CheckpointLedgerKind;
}

/**
 * One line of the tool-call ledger (`state.guards.approvals.ledger`): a held call's request, a
 * person's decision on it, or the note that the approved call ran.
 */
export interface ToolLedgerEntry extends LedgerEntryFields {
  /** What happened to the call. */
  kind: ToolLedgerKind;
}

/** A line of either ledger. */
export type LedgerEntry = CheckpointLedgerEntry | ToolLedgerEntry;

/** The ledger kinds of a person's decision on a single held tool call. */
export type ToolCallDecisionKind = 'tool-approved' | 'tool-denied';

/**
 * A person's decision on a tool call held for approval (`<Tool needsApproval>`), as
 * `approveToolCall`, `denyToolCall` and `session.approveToolCall` / `denyToolCall` return it: a
 * line of the tool-call ledger (`state.guards.approvals.ledger`), where `checkpoint` holds the
 * tool call's id and `toolName` / `inputHash` repeat its request's.
 */
export interface ToolCallLedgerEntry extends ToolLedgerEntry {
  /** What was decided. */
  kind: ToolCallDecisionKind;
}

/** The causes recorded by entries of each kind. */
export const CAUSE_OF_KIND: Partial<Record<CheckpointLedgerKind, CheckpointCause>> = {
  submitted: 'submit',
  budget: 'budget',
  file: 'file',
  finish: 'finish',
};

export function isPendingCause(kind: CheckpointLedgerKind): boolean {
  return kind === 'submitted' || kind === 'budget' || kind === 'file' || kind === 'finish';
}

/**
 * A supervisor's approval of a pending checkpoint (`approveCheckpoint`), signed into the ledger.
 */
export interface ApproveInput {
  /** Who approves (recorded and signed). */
  by: string;
  /** Shown to the model in its next request. */
  note?: string;
  /** Shared-secret signing key (HMAC); default `AGATE_APPROVAL_KEY`. */
  key?: string;
  /**
   * The supervisor's Ed25519 private key (PEM text, a PEM file path or a `KeyObject`); default
   * the file named by `AGATE_APPROVAL_KEY_FILE`. Wins over `key`.
   */
  privateKey?: string | import('node:crypto').KeyObject;
}

/**
 * A supervisor's rejection of a pending checkpoint (`rejectCheckpoint`): the feedback goes to the
 * model.
 */
export interface RejectInput {
  /** Who rejects (recorded and signed). */
  by: string;
  /** What to change; shown to the model in its next request. Required. */
  feedback: string;
  /** As for `ApproveInput.key`. */
  key?: string;
  /** As for `ApproveInput.privateKey`. */
  privateKey?: string | import('node:crypto').KeyObject;
}

/** The checkpoint family's slice of the state. */
export interface CheckpointsState {
  /** `<Checkpoint>` records by id (created when a checkpoint first opens). */
  records: Record<string, CheckpointRecord>;
  /**
   * Every submission, budget trip, file trigger, approval and rejection, oldest first. Tool-call
   * decisions have their own ledger (`state.guards.approvals.ledger`).
   */
  ledger: CheckpointLedgerEntry[];
}
