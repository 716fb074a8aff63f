import type { KeyObject } from 'node:crypto';
import type { GuardHost } from '../guard-seam/guard-family.js';
import type { GuardStates, SessionState } from '../state/session-state.js';
import {
  ApprovalKeyError,
  CheckpointDecisionError,
  CheckpointNotPendingError,
  MissingApprovalKeyError,
  UnknownCheckpointError,
} from './approval-errors.js';
import {
  type ApprovalVerifier,
  keyIdOf,
  newNonce,
  publicKeyId,
  resolveApprovalKey,
  signEntry,
  signEntryEd25519,
  verifies,
  verifyWith,
} from './approval-signing.js';
import { decisionTextProblem } from './decision-text.js';
import {
  type CheckpointCause,
  type CheckpointLedgerEntry,
  type CheckpointLedgerKind,
  type CheckpointRecord,
  type CheckpointStatus,
  isCheckpointLedgerKind,
  isPendingCause,
  isToolApprovalKind,
  type LedgerEntry,
  type LedgerKind,
  type LedgerName,
  type ToolLedgerEntry,
} from './ledger-types.js';

// node:crypto taken when first used (not at import), as ground/builtins.ts does inside the
// runtime; this is family code, which imports only the public API.
const nodeCrypto = (): typeof import('node:crypto') => process.getBuiltinModule('node:crypto');

/**
 * The checkpoint state machine over plain session state: pure functions that immer drafts (or
 * plain copies) go through, shared by the live session (`session.approve`) and by
 * `approveCheckpoint` on a stored snapshot, so both record and sign decisions the same way.
 */

/** The part of a session state this module reads and writes. */
export type CheckpointState = Pick<SessionState, 'id' | 'tick' | 'status' | 'reason'> & {
  guards: Pick<GuardStates, 'checkpoints'> & Partial<Pick<GuardStates, 'approvals'>>;
};

export interface SigningContext {
  sessionId: string;
  /** Shared-secret mode: signs every new entry (HMAC) when set. */
  key: string | undefined;
  /** Key-pair mode, the session's side: stamps its own entries with the key that decides (it cannot sign). */
  publicKey?: KeyObject | undefined;
  /** Key-pair mode, the supervisor's side: signs decisions (Ed25519). Wins over `key`. */
  privateKey?: KeyObject | undefined;
  /** ISO time of the entry (injectable for tests). */
  at?: string;
}

/**
 * How a session signs its own ledger entries (checkpoint submissions, held tool calls): with a
 * public key it cannot sign, so it stamps them with the key that decides; with only a shared
 * secret it signs them (version 1). An empty secret would sign with nothing secret: said once,
 * and the entries go unsigned rather than pretend.
 */
export function sessionSigning(
  host: Pick<GuardHost, 'sessionId' | 'options' | 'warnOnce'>,
  publicKey: KeyObject | undefined,
): SigningContext {
  if (publicKey !== undefined) return { sessionId: host.sessionId, key: undefined, publicKey };
  const key = resolveApprovalKey(host.options.approvalKey);
  if (key !== undefined && key.trim() === '') {
    host.warnOnce(
      'checkpoint-empty-key',
      'checkpoint-empty-key',
      'The approvalKey option is empty, so approvals (of checkpoints and tool calls) are unsigned. Pass a secret key (or set AGATE_APPROVAL_KEY) to sign them.',
    );
    return { sessionId: host.sessionId, key: undefined };
  }
  return { sessionId: host.sessionId, key };
}

const KIND_OF_CAUSE: Record<CheckpointCause, CheckpointLedgerKind> = {
  submit: 'submitted',
  budget: 'budget',
  file: 'file',
  finish: 'finish',
};

/** Records, tolerating a hand-edited snapshot where the field is missing or not an object. */
export function recordsOf(state: {
  guards: Pick<GuardStates, 'checkpoints'>;
}): Record<string, CheckpointRecord> {
  const records = state.guards.checkpoints.records as unknown;
  return typeof records === 'object' && records !== null && !Array.isArray(records)
    ? (records as Record<string, CheckpointRecord>)
    : {};
}

/**
 * The checkpoint ledger's entries that look like entries (others, from a damaged file, are
 * ignored, as is a tool-call entry copied in: tool calls have their own ledger).
 */
export function ledgerOf(state: {
  guards: Pick<GuardStates, 'checkpoints'>;
}): readonly CheckpointLedgerEntry[] {
  return entriesOf(state.guards.checkpoints?.ledger, isCheckpointLedgerKind);
}

/**
 * The tool-call ledger's entries (`state.guards.approvals.ledger`) that look like entries; a
 * checkpoint entry copied in is ignored.
 */
export function toolLedgerOf(state: {
  guards: Partial<Pick<GuardStates, 'approvals'>>;
}): readonly ToolLedgerEntry[] {
  return entriesOf(state.guards.approvals?.ledger, isToolApprovalKind);
}

/**
 * Both ledgers' entries: a session's key is one for both, so what one ledger was signed with
 * decides how the other's new entries are signed and checked (`checkKey`, `requireVerifier`).
 */
export function allLedgerEntries(state: {
  guards: Pick<GuardStates, 'checkpoints'> & Partial<Pick<GuardStates, 'approvals'>>;
}): readonly LedgerEntry[] {
  return [...ledgerOf(state), ...toolLedgerOf(state)];
}

function entriesOf<E extends LedgerEntry>(
  raw: unknown,
  isKind: (kind: unknown) => kind is E['kind'],
): readonly E[] {
  if (!Array.isArray(raw)) return [];
  // A state's ledger is frozen: filtered once, however many times a tick reads it.
  const known = Object.isFrozen(raw) ? wellFormed.get(raw) : undefined;
  if (known !== undefined) return known as readonly E[];
  const entries = raw.filter(
    (e): e is E =>
      typeof e === 'object' &&
      e !== null &&
      typeof (e as LedgerEntry).checkpoint === 'string' &&
      isKind((e as LedgerEntry).kind),
  );
  if (Object.isFrozen(raw)) wellFormed.set(raw, entries);
  return entries;
}
const wellFormed = new WeakMap<readonly unknown[], readonly LedgerEntry[]>();

/** The entries about checkpoints (the checkpoint ledger holds nothing else since version 3). */
export function checkpointEntries(
  ledger: readonly CheckpointLedgerEntry[],
): CheckpointLedgerEntry[] {
  return ledger.filter((e) => isCheckpointLedgerKind(e.kind));
}

/**
 * The submission or trip a decision on `id` answers: the last one before `before`. A decision
 * must answer exactly this entry (its signature covers it), so an old approval cannot be
 * replayed for a newer submission.
 */
export function latestRequest(
  ledger: readonly CheckpointLedgerEntry[],
  id: string,
  before = ledger.length,
): CheckpointLedgerEntry | undefined {
  for (let i = before - 1; i >= 0; i--) {
    const entry = ledger[i]!;
    if (entry.checkpoint === id && isPendingCause(entry.kind)) return entry;
  }
  return undefined;
}

/**
 * Appends an entry to a ledger (numbered in that ledger, and signed with the ledger's name when
 * there is a key) and returns it. `ledger` is the array itself (an immer draft or a plain copy).
 */
export function appendTo<E extends LedgerEntry>(
  name: LedgerName,
  ledger: E[],
  entry: Omit<E, 'seq' | 'at'>,
  signing: SigningContext,
): E {
  const numbered = {
    ...entry,
    seq: (ledger.at(-1)?.seq ?? 0) + 1,
    at: signing.at ?? new Date().toISOString(),
  } as E;
  const answered =
    numbered.answers === undefined ? undefined : ledger.find((e) => e.seq === numbered.answers);
  const final: E =
    signing.privateKey !== undefined
      ? signEntryEd25519(signing.privateKey, signing.sessionId, numbered, answered, name)
      : signing.key !== undefined
        ? signEntry(signing.key, signing.sessionId, numbered, answered, name)
        : signing.publicKey !== undefined
          ? { ...numbered, alg: 'ed25519' as const, keyId: publicKeyId(signing.publicKey) }
          : numbered;
  ledger.push(final);
  return final;
}

/** Appends an entry to the checkpoint ledger and returns it. */
export function appendEntry(
  state: CheckpointState,
  entry: Omit<CheckpointLedgerEntry, 'seq' | 'at'>,
  signing: SigningContext,
): CheckpointLedgerEntry {
  if (!Array.isArray(state.guards.checkpoints.ledger)) state.guards.checkpoints.ledger = [];
  return appendTo('checkpoints', state.guards.checkpoints.ledger, entry, signing);
}

/** The checkpoint's record, created (unlocked, opened now) when it has none. */
export function ensureRecord(state: CheckpointState, id: string, tick: number): CheckpointRecord {
  if (recordsOf(state) !== state.guards.checkpoints.records) state.guards.checkpoints.records = {};
  state.guards.checkpoints.records[id] ??= { state: 'unlocked', ticks: 0, openedAtTick: tick };
  return state.guards.checkpoints.records[id];
}

export interface PendingInput {
  cause: CheckpointCause;
  tick: number;
  /** `model` or `runtime`. */
  by: string;
  summary?: string;
  reason: string;
}

/**
 * Records a submission or trip and makes the checkpoint pending. A submission while it is
 * already pending (say, after its file trigger fired in the same response) is recorded too, so
 * the supervisor sees the summary; `becamePending` says whether the state changed.
 */
export function markPending(
  state: CheckpointState,
  id: string,
  input: PendingInput,
  signing: SigningContext,
): { entry: CheckpointLedgerEntry; becamePending: boolean } {
  const record = ensureRecord(state, id, input.tick);
  const becamePending = record.state !== 'pending';
  const entry = appendEntry(
    state,
    {
      checkpoint: id,
      kind: KIND_OF_CAUSE[input.cause],
      by: input.by,
      tick: input.tick,
      ...(input.summary !== undefined ? { summary: input.summary } : {}),
      ...(input.cause !== 'submit' ? { reason: input.reason } : {}),
      nonce: newNonce(),
    },
    signing,
  );
  if (becamePending) {
    record.state = 'pending';
    record.cause = input.cause;
    record.reason = input.reason;
  }
  return { entry, becamePending };
}

export type Decision =
  | { kind: 'approved'; by: string; note?: string }
  | { kind: 'rejected'; by: string; feedback: string };

/**
 * Approves or rejects a pending checkpoint. Every check comes before the first change, so a
 * refused decision leaves the state as it was. Approval: `approved`. Rejection: `unlocked`
 * again with a fresh budget and a new file baseline. When nothing is pending any more, a
 * session that ended `awaiting-approval` becomes `idle` (its next `run()` goes on).
 */
export function decide(
  state: CheckpointState,
  id: string,
  decision: Decision,
  signing: SigningContext,
): CheckpointLedgerEntry {
  const by = typeof decision.by === 'string' ? decision.by.trim() : '';
  if (by === '') {
    throw new CheckpointDecisionError(
      `Say who ${decision.kind === 'approved' ? 'approves' : 'rejects'} checkpoint "${id}": \`by\` must be a non-empty name.`,
    );
  }
  if (
    decision.kind === 'rejected' &&
    (typeof decision.feedback !== 'string' || decision.feedback.trim() === '')
  ) {
    throw new CheckpointDecisionError(
      `Rejecting checkpoint "${id}" needs feedback: the model is told what to change, so \`feedback\` must be non-empty text.`,
    );
  }
  const textProblem =
    decisionTextProblem('`by`', by) ??
    (decision.kind === 'rejected'
      ? decisionTextProblem('`feedback`', decision.feedback.trim())
      : typeof decision.note === 'string'
        ? decisionTextProblem('`note`', decision.note.trim())
        : undefined);
  if (textProblem !== undefined) {
    throw new CheckpointDecisionError(`Deciding checkpoint "${id}": ${textProblem}`);
  }
  const records = recordsOf(state);
  const ledger = ledgerOf(state);
  const record = records[id];
  if (record === undefined) {
    const known = [
      ...new Set([...Object.keys(records), ...checkpointEntries(ledger).map((e) => e.checkpoint)]),
    ];
    throw new UnknownCheckpointError(id, state.id, known);
  }
  if (record.state !== 'pending') {
    const last = lastDecision(ledger, id);
    throw new CheckpointNotPendingError(id, record.state, undefined, last);
  }
  const request = latestRequest(ledger, id);
  if (request === undefined) {
    throw new CheckpointNotPendingError(
      id,
      'marked pending',
      'Its ledger holds no submission or trip waiting for a decision; the session file may have been edited.',
    );
  }
  checkKey(allLedgerEntries(state), signing, state.id);

  const entry = appendEntry(
    state,
    {
      checkpoint: id,
      kind: decision.kind,
      by,
      tick: state.tick,
      ...(decision.kind === 'approved' && decision.note !== undefined && decision.note !== ''
        ? { note: decision.note }
        : {}),
      ...(decision.kind === 'rejected' ? { feedback: decision.feedback } : {}),
      answers: request.seq,
      // Names the request it answers (see `namesRequest`).
      ...(request.nonce !== undefined ? { nonce: request.nonce } : {}),
    },
    signing,
  );
  const updated = state.guards.checkpoints.records[id]!;
  delete updated.cause;
  delete updated.reason;
  if (decision.kind === 'approved') {
    updated.state = 'approved';
  } else {
    updated.state = 'unlocked';
    updated.ticks = 0;
    updated.openedAtTick = state.tick + 1;
    delete updated.baseline;
  }
  const stillPending = Object.values(state.guards.checkpoints.records).some(
    (r) => r.state === 'pending',
  );
  if (!stillPending && state.status === 'awaiting-approval') {
    state.status = 'idle';
    state.reason = `Checkpoint "${id}" was ${decision.kind} by ${by}; run() goes on.`;
  }
  return entry;
}

const CHECKPOINT_DECISIONS: readonly LedgerKind[] = ['approved', 'rejected'];
export const TOOL_DECISIONS: readonly LedgerKind[] = ['tool-approved', 'tool-denied'];

/**
 * The latest decision on `id`, if any: an approval or rejection of a checkpoint, or (in the
 * tool-call ledger, with `TOOL_DECISIONS`) an approval or denial of a held tool call.
 */
export function lastDecision<E extends LedgerEntry>(
  ledger: readonly E[],
  id: string,
  kinds: readonly LedgerKind[] = CHECKPOINT_DECISIONS,
): E | undefined {
  for (let i = ledger.length - 1; i >= 0; i--) {
    const entry = ledger[i]!;
    if (entry.checkpoint === id && kinds.includes(entry.kind)) return entry;
  }
  return undefined;
}

/**
 * A supervisor's key must be usable: not empty, and the same key that signed the session's
 * earlier entries (a decision signed with another key would not verify where the session runs).
 */
export function checkKey(
  ledger: readonly LedgerEntry[],
  signing: SigningContext,
  sessionId: string,
): void {
  const { key, privateKey } = signing;
  if (privateKey === undefined && key !== undefined && key.trim() === '') {
    throw new ApprovalKeyError(
      'The approval key is empty. Pass the key the session runs with (or unset it to record an unsigned decision).',
    );
  }
  const last = ledger.filter((e) => typeof e.keyId === 'string').at(-1);
  if (last === undefined) return;
  const mine =
    privateKey !== undefined
      ? publicKeyId(nodeCrypto().createPublicKey(privateKey))
      : key !== undefined
        ? keyIdOf(key)
        : undefined;
  if (mine === undefined) {
    throw new ApprovalKeyError(
      last.alg === 'ed25519'
        ? `Session "${sessionId}" checks decisions with a public key (key id ${last.keyId}): sign this ` +
            'decision with its private key (the privateKey option, --key-file, or AGATE_APPROVAL_KEY_FILE), ' +
            'or the session will not accept it.'
        : `Session "${sessionId}" signs its checkpoint ledger (key id ${last.keyId}): sign this decision ` +
            'with the same key (the `key` option, or AGATE_APPROVAL_KEY), or the session will not accept it.',
    );
  }
  if (last.keyId !== mine) {
    throw new ApprovalKeyError(
      `This approval key is not the one session "${sessionId}" ${last.alg === 'ed25519' ? 'checks decisions with' : 'signs with'} (its key id is ` +
        `${last.keyId}, this key's is ${mine}). A decision signed with it would not be accepted; ` +
        (last.alg === 'ed25519'
          ? 'use the private key that belongs to the public key the session runs with.'
          : "use the session's key."),
    );
  }
}

/**
 * Why `decision` is not an answer to `request`, or undefined when it is: a decision names the
 * request it answers (its `seq`, its nonce, and for a tool call its tool and input digest), and
 * a request made under a key pair is answered only by a decision signed with one. The signature
 * covers all of it; this also holds where nothing is signed, and says plainly what differs.
 */
export function namesRequest(decision: LedgerEntry, request: LedgerEntry): string | undefined {
  if (decision.answers !== request.seq) {
    return `answers ledger entry ${String(decision.answers)}, not the request (entry ${request.seq})`;
  }
  if (decision.nonce !== request.nonce) {
    return `names another request (its nonce is not the one of entry ${request.seq})`;
  }
  if (
    isToolApprovalKind(request.kind) &&
    decision.toolName !== undefined &&
    (decision.toolName !== request.toolName || decision.inputHash !== request.inputHash)
  ) {
    return `names another tool or input than its request (entry ${request.seq})`;
  }
  if (request.alg === 'ed25519' && decision.alg !== 'ed25519') {
    return `is not signed with a key pair, and its request (entry ${request.seq}) was made under one`;
  }
  return undefined;
}

/**
 * Signed stays signed: a ledger with an entry made under a key (a signed decision, or a request
 * stamped with the key that decides it) is checked with that key or not at all. Throws
 * `MissingApprovalKeyError` when the run has no key that could check it, rather than take its
 * decisions unsigned: a key pair's entries need the public key (a shared secret would let the
 * run, and so its tools, forge them); a shared secret's need a key of some kind (with only the
 * public key, they fail to verify, which is safe).
 */
export function requireVerifier(
  ledger: readonly LedgerEntry[],
  verifier: ApprovalVerifier,
  sessionId: string,
): void {
  if (verifier.publicKey !== undefined) return;
  const pair = ledger.find((e) => e.alg === 'ed25519');
  if (pair !== undefined) {
    throw new MissingApprovalKeyError(
      sessionId,
      'approvalPublicKey',
      typeof pair.keyId === 'string' ? pair.keyId : 'unknown',
      pair.seq,
    );
  }
  if (verifier.key !== undefined) return;
  const secret = ledger.find(
    (e) => typeof e.keyId === 'string' || (typeof e.signature === 'string' && e.signature !== ''),
  );
  if (secret !== undefined) {
    throw new MissingApprovalKeyError(
      sessionId,
      'approvalKey',
      typeof secret.keyId === 'string' ? secret.keyId : 'unknown',
      secret.seq,
    );
  }
}

/** What the ledger alone says a checkpoint is, with the reason when it overrules an approval. */
export function ledgerStatus(
  entries: readonly CheckpointLedgerEntry[],
  id: string,
  sessionId: string,
  verifier: ApprovalVerifier,
): { status: CheckpointStatus | undefined; why?: string } {
  const ledger = checkpointEntries(entries);
  let last: CheckpointLedgerEntry | undefined;
  let lastIndex = -1;
  for (let i = ledger.length - 1; i >= 0; i--) {
    if (ledger[i]!.checkpoint === id) {
      last = ledger[i];
      lastIndex = i;
      break;
    }
  }
  if (last === undefined) return { status: undefined, why: 'its ledger has no approval' };
  if (isPendingCause(last.kind)) {
    return { status: 'pending', why: `its ledger ends with a ${last.kind} entry and no decision` };
  }
  if (last.kind !== 'approved' && last.kind !== 'rejected') {
    return { status: undefined, why: 'its ledger has no approval' };
  }
  const request = latestRequest(ledger, id, lastIndex);
  if (request === undefined || request.seq !== last.answers) {
    return {
      status: 'pending',
      why: `its ${last.kind} entry (${last.seq}) does not answer its latest submission`,
    };
  }
  if (verifies(verifier)) {
    const check = verifyWith(verifier, sessionId, last, request, 'checkpoints');
    if (!check.ok)
      return { status: 'pending', why: `its ${last.kind} entry (${last.seq}): ${check.why}` };
  }
  // After the signature, which covers all of it: where nothing is signed this still holds.
  const mismatch = namesRequest(last, request);
  if (mismatch !== undefined) {
    return { status: 'pending', why: `its ${last.kind} entry (${last.seq}) ${mismatch}` };
  }
  return { status: last.kind === 'approved' ? 'approved' : 'unlocked' };
}

export interface Correction {
  id: string;
  from: CheckpointStatus;
  to: 'pending';
  why: string;
}

/**
 * Checks a restored state against its ledger: a checkpoint recorded as approved without a
 * valid (with a key: validly signed) approval, or recorded as unlocked while its ledger shows
 * a submission waiting for a decision, counts as pending. Flipping a state or copying an entry
 * in a snapshot file therefore does not let the agent through.
 */
export function findCorrections(
  state: { guards: Pick<GuardStates, 'checkpoints'> },
  sessionId: string,
  verifier: ApprovalVerifier,
): Correction[] {
  const records = recordsOf(state);
  const ledger = ledgerOf(state);
  const ids = new Set([
    ...Object.keys(records),
    ...checkpointEntries(ledger).map((e) => e.checkpoint),
  ]);
  const corrections: Correction[] = [];
  for (const id of ids) {
    const recorded = records[id]?.state ?? 'unlocked';
    if (recorded === 'pending') continue;
    const found = ledgerStatus(ledger, id, sessionId, verifier);
    if (recorded === 'approved' && found.status !== 'approved') {
      corrections.push({
        id,
        from: recorded,
        to: 'pending',
        why: found.why ?? 'no valid approval',
      });
    } else if (recorded === 'unlocked' && found.status === 'pending') {
      corrections.push({ id, from: recorded, to: 'pending', why: found.why ?? 'a pending entry' });
    }
  }
  return corrections;
}

/** Applies corrections to a draft. */
export function applyCorrections(state: CheckpointState, corrections: readonly Correction[]): void {
  for (const c of corrections) {
    const record = ensureRecord(state, c.id, state.tick + 1);
    record.state = 'pending';
    record.reason = `the session file says "${c.from}" but ${c.why}`;
  }
}
