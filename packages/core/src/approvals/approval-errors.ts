import { AgateError, nameErrorClass } from '../ground/agate-error.js';

/** No session with that id in the store. */
export class UnknownSessionError extends AgateError {
  static {
    nameErrorClass(UnknownSessionError, 'UnknownSessionError');
  }
  /** The id no stored session has. */
  readonly sessionId: string;
  constructor(sessionId: string, where?: string) {
    super(
      `No session "${sessionId}"${where === undefined ? '' : ` in ${where}`}. ` +
        'Check the id (list the stored sessions with `agate sessions`, or store.list()).',
    );
    this.sessionId = sessionId;
  }
}

/** The session has no checkpoint with that id (none was ever opened or declared under it). */
export class UnknownCheckpointError extends AgateError {
  static {
    nameErrorClass(UnknownCheckpointError, 'UnknownCheckpointError');
  }
  /** The id no checkpoint has. */
  readonly checkpointId: string;
  constructor(checkpointId: string, sessionId: string, known: readonly string[]) {
    super(
      `Session "${sessionId}" has no checkpoint "${checkpointId}". ` +
        (known.length > 0
          ? `Its checkpoints: ${known.map((k) => `"${k}"`).join(', ')}.`
          : 'It has no checkpoints yet.'),
    );
    this.checkpointId = checkpointId;
  }
}

/** Only a pending checkpoint can be approved or rejected. */
export class CheckpointNotPendingError extends AgateError {
  static {
    nameErrorClass(CheckpointNotPendingError, 'CheckpointNotPendingError');
  }
  /** The checkpoint that was decided on. */
  readonly checkpointId: string;
  /** Its state instead of `pending`. */
  readonly state: string;
  /** Who made the latest decision on it (`approved` or `rejected`), when there was one. */
  readonly decidedBy?: string;
  /** That decision: `approved` or `rejected`. */
  readonly decision?: string;
  constructor(
    checkpointId: string,
    state: string,
    detail?: string,
    decided?: { kind: string; by: string; at?: string; seq?: number },
  ) {
    // Who decided comes first: after a race it is what the losing supervisor needs to know.
    const who =
      decided === undefined
        ? ''
        : `Checkpoint "${checkpointId}" was already ${decided.kind} by ${decided.by}` +
          `${decided.at === undefined ? '' : ` at ${decided.at}`}` +
          `${decided.seq === undefined ? '' : ` (ledger entry #${decided.seq})`}. `;
    super(
      `${who}Checkpoint "${checkpointId}" is ${state}, not pending: only a pending checkpoint (one the ` +
        `agent submitted, or whose budget or file trigger fired) can be approved or rejected.${
          detail === undefined ? '' : ` ${detail}`
        }`,
    );
    this.checkpointId = checkpointId;
    this.state = state;
    if (decided !== undefined) {
      this.decidedBy = decided.by;
      this.decision = decided.kind;
    }
  }
}

/** The approval key is empty, missing where the session's entries are signed, or not the one that signed them. */
export class ApprovalKeyError extends AgateError {
  static {
    nameErrorClass(ApprovalKeyError, 'ApprovalKeyError');
  }
}

/**
 * The session's ledger was written under a key (a signed decision, or a request stamped with
 * the key that decides it), and the run was given none to check it with. A run never falls back
 * to taking decisions unsigned, so it does not start; `missing` names the option to give.
 */
export class MissingApprovalKeyError extends ApprovalKeyError {
  static {
    nameErrorClass(MissingApprovalKeyError, 'MissingApprovalKeyError');
  }
  /** The option that gives the key: `approvalPublicKey` (key pair) or `approvalKey` (shared secret). */
  readonly missing: 'approvalPublicKey' | 'approvalKey';
  /** The key id the ledger names (`ed25519:…`, or a shared secret's short HMAC). */
  readonly keyId: string;
  constructor(
    sessionId: string,
    missing: 'approvalPublicKey' | 'approvalKey',
    keyId: string,
    seq: number,
  ) {
    super(
      missing === 'approvalPublicKey'
        ? `Session "${sessionId}" is decided under an approval key pair (key id ${keyId}, ledger entry #${seq}), ` +
            'and this run has no public key to check its decisions with. Give it the public key: the ' +
            'approvalPublicKey option, or AGATE_APPROVAL_PUBLIC_KEY (PEM text or the path of the ' +
            'agate-approval.pub file `agate keys new` wrote). Without it the run would have to take ' +
            'decisions unsigned, so it does not start.'
        : `Session "${sessionId}" signs its ledger with a shared secret (key id ${keyId}, ledger entry #${seq}), ` +
            'and this run has no key to check its decisions with. Give it the key: the approvalKey ' +
            'option or AGATE_APPROVAL_KEY (or approvalPublicKey, when its decisions are now made with a ' +
            'key pair). Without one the run would have to take decisions unsigned, so it does not start.',
    );
    this.missing = missing;
    this.keyId = keyId;
  }
}

/** A decision without a name (`by`) or a rejection without feedback. */
export class CheckpointDecisionError extends AgateError {
  static {
    nameErrorClass(CheckpointDecisionError, 'CheckpointDecisionError');
  }
}
