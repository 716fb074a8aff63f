import type { KeyObject } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { ApprovalKeyError } from './approval-errors.js';
import {
  isToolApprovalKind,
  type LedgerEntry,
  type LedgerEntryFields,
  type LedgerName,
} from './ledger-types.js';

// node:crypto taken when first used (not at import), as ground/builtins.ts does inside the
// runtime; this is family code, which imports only the public API.
const nodeCrypto = (): typeof import('node:crypto') => process.getBuiltinModule('node:crypto');

/** A request's nonce: 128 random bits, so no two requests are ever named alike. */
export function newNonce(): string {
  return nodeCrypto().randomBytes(16).toString('base64url');
}

/** Environment variable read when no `approvalKey` / `key` is given (shared secret, HMAC). */
export const APPROVAL_KEY_ENV = 'AGATE_APPROVAL_KEY';
/** The public key a run verifies decisions with: PEM text, or the path of a PEM file. */
export const APPROVAL_PUBLIC_KEY_ENV = 'AGATE_APPROVAL_PUBLIC_KEY';
/** The supervisor's private key file (PEM), read by `approveCheckpoint` and `agate approve`. */
export const APPROVAL_KEY_FILE_ENV = 'AGATE_APPROVAL_KEY_FILE';

/** A PEM text or a `KeyObject`; a string not starting with `-----BEGIN` is a file path. */
export type KeyInput = string | KeyObject;

/**
 * An Ed25519 key pair for signing decisions: the supervisor keeps `privateKey` (PEM, PKCS#8)
 * and the run gets only `publicKey` (PEM, SPKI), so nothing in the run can sign a decision.
 */
export function generateApprovalKeyPair(): {
  privateKey: string;
  publicKey: string;
  keyId: string;
} {
  const pair = nodeCrypto().generateKeyPairSync('ed25519');
  return {
    privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    keyId: publicKeyId(pair.publicKey),
  };
}

/** A PEM Ed25519 key is well under 1 KiB; a bigger file is not one (and is not read whole). */
const MAX_KEY_FILE_BYTES = 64 * 1024;

function pemOf(input: string, what: string): string {
  if (input.trimStart().startsWith('-----BEGIN')) return input;
  try {
    // Stat before reading: a path to a large file (a binary, a log) or to a FIFO that would
    // block is refused without reading it.
    const stat = statSync(input);
    if (!stat.isFile() || stat.size > MAX_KEY_FILE_BYTES) {
      throw new ApprovalKeyError(
        `The ${what} file ${JSON.stringify(input)} is not a key file: ` +
          (stat.isFile()
            ? `${stat.size} bytes, and a PEM key file is under ${MAX_KEY_FILE_BYTES / 1024} KiB.`
            : 'it is not a regular file.') +
          ' Give PEM text or the path of a PEM file (agate keys new writes both keys).',
      );
    }
    return readFileSync(input, 'utf8');
  } catch (error) {
    if (ApprovalKeyError.isInstance(error)) throw error;
    throw new ApprovalKeyError(
      `Could not read the ${what} file ${JSON.stringify(input)}: ${(error as Error).message}. ` +
        'Give PEM text or the path of a PEM file (agate keys new writes both keys).',
    );
  }
}

/** An Ed25519 private key from PEM text, a PEM file path or a `KeyObject`. */
export function toPrivateKey(input: KeyInput): KeyObject {
  let key: KeyObject;
  try {
    key =
      typeof input === 'string'
        ? nodeCrypto().createPrivateKey(pemOf(input, 'private key'))
        : input;
  } catch (error) {
    if (ApprovalKeyError.isInstance(error)) throw error;
    throw new ApprovalKeyError(
      `The private key is not a PEM private key: ${(error as Error).message}.`,
    );
  }
  if (key.type !== 'private' || key.asymmetricKeyType !== 'ed25519') {
    throw new ApprovalKeyError(
      `The private key must be an Ed25519 private key (agate keys new makes one), not ${key.type} ${key.asymmetricKeyType ?? ''}.`,
    );
  }
  return key;
}

/** An Ed25519 public key from PEM text, a PEM file path or a `KeyObject`. */
export function toPublicKey(input: KeyInput): KeyObject {
  let key: KeyObject;
  try {
    key =
      typeof input === 'string' ? nodeCrypto().createPublicKey(pemOf(input, 'public key')) : input;
  } catch (error) {
    if (ApprovalKeyError.isInstance(error)) throw error;
    throw new ApprovalKeyError(
      `The public key is not a PEM public key: ${(error as Error).message}.`,
    );
  }
  if (key.type === 'private') key = nodeCrypto().createPublicKey(key);
  if (key.type !== 'public' || key.asymmetricKeyType !== 'ed25519') {
    throw new ApprovalKeyError(
      'approvalPublicKey must be an Ed25519 public key (agate keys new makes one).',
    );
  }
  return key;
}

/** A short public name for a public key: the first 16 hex digits of the SHA-256 of its SPKI DER. */
export function publicKeyId(key: KeyObject): string {
  const der = key.export({ type: 'spki', format: 'der' });
  return `ed25519:${nodeCrypto().createHash('sha256').update(der).digest('hex').slice(0, 16)}`;
}

/** `explicit`, else `AGATE_APPROVAL_PUBLIC_KEY` (PEM or path), else undefined. */
export function resolveApprovalPublicKey(explicit: KeyInput | undefined): KeyObject | undefined {
  if (explicit !== undefined) return toPublicKey(explicit);
  const fromEnv = process.env[APPROVAL_PUBLIC_KEY_ENV];
  return fromEnv === undefined || fromEnv === '' ? undefined : toPublicKey(fromEnv);
}

/** `explicit`, else the file named by `AGATE_APPROVAL_KEY_FILE`, else undefined. */
export function resolveApprovalPrivateKey(explicit: KeyInput | undefined): KeyObject | undefined {
  if (explicit !== undefined) return toPrivateKey(explicit);
  const file = process.env[APPROVAL_KEY_FILE_ENV];
  return file === undefined || file === '' ? undefined : toPrivateKey(file);
}

/** What a session checks decisions with: the public key, and (for version-1 ledgers) the shared secret. */
export interface ApprovalVerifier {
  key?: string | undefined;
  publicKey?: KeyObject | undefined;
}

/**
 * A supervisor's signing keys as given (else from the environment): the private key wins, and
 * the shared secret (the version-1 mode) is used only without one. `verifier` checks what they
 * sign, as the session will.
 */
export function resolveDecisionKeys(keys: { key?: string; privateKey?: KeyInput } | undefined): {
  privateKey?: KeyObject;
  key?: string;
  verifier: ApprovalVerifier;
} {
  const privateKey = resolveApprovalPrivateKey(keys?.privateKey);
  if (privateKey !== undefined) {
    return { privateKey, verifier: { publicKey: nodeCrypto().createPublicKey(privateKey) } };
  }
  const key = resolveApprovalKey(keys?.key);
  return { ...(key !== undefined ? { key } : {}), verifier: { key } };
}

/** True when the verifier holds any key (else decisions are taken as they are: unsigned mode). */
export function verifies(verifier: ApprovalVerifier): boolean {
  return verifier.key !== undefined || verifier.publicKey !== undefined;
}

/** Returns the entry signed with the private key (`alg: 'ed25519'`). */
export function signEntryEd25519<E extends LedgerEntry>(
  privateKey: KeyObject,
  sessionId: string,
  entry: E,
  answered: LedgerEntry | undefined,
  ledger: LedgerName = ledgerOfKind(entry),
): E {
  const { keyId: _k, signature: _s, alg: _a, ...unsigned } = entry;
  const payload = Buffer.from(newPayload(ledger, sessionId, unsigned, answered));
  const signature = nodeCrypto().sign(null, payload, privateKey).toString('base64');
  return {
    ...unsigned,
    alg: 'ed25519',
    keyId: publicKeyId(nodeCrypto().createPublicKey(privateKey)),
    signature,
  } as E;
}

/** Checks one entry against the verifier: Ed25519 entries with the public key, older ones with the shared secret. */
export function verifyWith(
  verifier: ApprovalVerifier,
  sessionId: string,
  entry: LedgerEntry,
  answered: LedgerEntry | undefined,
  ledger: LedgerName = ledgerOfKind(entry),
): SignatureCheck {
  if (typeof entry.signature !== 'string' || entry.signature === '') {
    return { ok: false, why: 'it is not signed' };
  }
  if (entry.alg === 'ed25519') {
    const { publicKey } = verifier;
    if (publicKey === undefined) {
      return {
        ok: false,
        why: 'it is signed with a key pair, and the session has no approvalPublicKey to check it',
      };
    }
    if (entry.keyId !== publicKeyId(publicKey)) {
      return { ok: false, why: 'it was signed with a different key' };
    }
    const { keyId: _k, signature, alg: _a, ...unsigned } = entry;
    const payload = signingPayload(sessionId, unsigned, answered, ledger);
    if (typeof payload !== 'string') return payload;
    const ok = nodeCrypto().verify(
      null,
      Buffer.from(payload),
      publicKey,
      Buffer.from(signature, 'base64'),
    );
    return ok
      ? { ok: true }
      : {
          ok: false,
          why: 'its signature does not match its content (the entry was edited or copied)',
        };
  }
  if (verifier.key === undefined) {
    return {
      ok: false,
      why: 'it is signed with a shared secret (HMAC), and the session has no approvalKey to check it',
    };
  }
  return verifyEntry(verifier.key, sessionId, entry, answered, ledger);
}

/**
 * Each ledger's name in its signed payloads. Each ledger numbers its own entries (`seq`), and a
 * signature covers the ledger's name with the number, so an entry (or a decision with the
 * request it answers) copied into the other ledger does not verify there even where its number
 * is free. The checkpoint ledger's tag is the one every version-1 and -2 entry was signed with,
 * so its entries keep their signatures; tool-call entries moved out of it by the version-3
 * migration keep theirs through `signedAs`.
 */
const PAYLOAD_TAGS: Record<LedgerName, string> = {
  checkpoints: 'agate.checkpoint-ledger/1',
  'tool-calls': 'agate.tool-call-ledger/1',
};

/** The ledger an entry of this kind belongs in (the two ledgers' kinds do not overlap). */
export function ledgerOfKind(entry: Pick<LedgerEntry, 'kind'>): LedgerName {
  return isToolApprovalKind(entry.kind) ? 'tool-calls' : 'checkpoints';
}

/** `explicit`, else `AGATE_APPROVAL_KEY`, else undefined (approvals are then unsigned). */
export function resolveApprovalKey(explicit: string | undefined): string | undefined {
  if (explicit !== undefined) return explicit;
  const fromEnv = process.env[APPROVAL_KEY_ENV];
  return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
}

/**
 * A short public name for a key (an HMAC of a fixed text, so it reveals nothing about the key):
 * lets a supervisor with the wrong key be told so before anything is written.
 */
export function keyIdOf(key: string): string {
  return nodeCrypto()
    .createHmac('sha256', key)
    .update('agate.approval-key-id')
    .digest('hex')
    .slice(0, 16);
}

/** The entry's own fields in a fixed order (what a signature covers), without its signature. */
function fieldsOf(entry: Omit<LedgerEntryFields, 'signedAs'> & { kind: string }): unknown[] {
  return [
    entry.seq,
    entry.checkpoint,
    entry.kind,
    entry.by,
    entry.at,
    entry.tick,
    entry.summary ?? null,
    entry.reason ?? null,
    entry.note ?? null,
    entry.feedback ?? null,
    entry.answers ?? null,
    // Only tool-call approvals carry these; checkpoint entries keep their version-1 payload.
    ...(isToolApprovalKind(entry.kind) ? [entry.toolName ?? null, entry.inputHash ?? null] : []),
    // Entries from before nonces existed keep the payload they were signed with.
    ...(entry.nonce !== undefined ? [entry.nonce] : []),
  ];
}

/**
 * The signed text: the ledger's name, the session id, the entry (checkpoint, decision, who,
 * when, note or feedback, its place in the ledger) and, for a decision, the whole entry it
 * answers. Editing any of these, or copying the entry to another checkpoint, session,
 * submission or ledger, breaks the signature.
 */
function newPayload(
  ledger: LedgerName,
  sessionId: string,
  entry: Omit<LedgerEntry, 'signedAs'>,
  answered: LedgerEntry | undefined,
  migrated = false,
): string {
  // The answered entry as it was signed: a migrated request of the tool-call ledger by its
  // version-2 numbers; `signedAs` means nothing anywhere else.
  const asSigned = migrated || ledger === 'tool-calls';
  return JSON.stringify([
    PAYLOAD_TAGS[ledger],
    sessionId,
    fieldsOf(entry),
    answered === undefined ? null : fieldsOf(asSigned ? numberedAsSigned(answered) : answered),
  ]);
}

/** `entry` with the numbers its signature covers: its version-2 ones when it was migrated. */
function numberedAsSigned(entry: LedgerEntry): Omit<LedgerEntry, 'signedAs'> {
  const { signedAs, answers: _a, ...rest } = entry;
  if (signedAs === undefined) return entry;
  return {
    ...rest,
    seq: signedAs.seq,
    ...(signedAs.answers !== undefined ? { answers: signedAs.answers } : {}),
  };
}

/**
 * What `entry`'s signature covers when it is read in `ledger`: the payload it was signed with,
 * or why none can be built. An entry moved out of the checkpoint ledger by the version-3
 * migration (`signedAs`) is checked in its version-2 form (the checkpoint ledger's tag and
 * numbers); it is a decision on a migrated request, or nothing: a request written since has no
 * version-2 form, so an old decision cannot answer it. `signedAs` counts only in the tool-call
 * ledger, where the migration puts it.
 */
export function signingPayload(
  sessionId: string,
  entry: LedgerEntry,
  answered: LedgerEntry | undefined,
  ledger: LedgerName = ledgerOfKind(entry),
): string | { ok: false; why: string } {
  if (entry.signedAs === undefined || ledger !== 'tool-calls') {
    const { signedAs: _s, ...own } = entry;
    return newPayload(ledger, sessionId, own, answered);
  }
  if (entry.signedAs.ledger !== 'checkpoints' || !Number.isSafeInteger(entry.signedAs.seq)) {
    return { ok: false, why: 'its signedAs field names no version-2 ledger place' };
  }
  if (answered !== undefined && answered.signedAs === undefined) {
    return {
      ok: false,
      why: 'it was signed in a version-2 session file and answers an entry written since',
    };
  }
  return newPayload('checkpoints', sessionId, numberedAsSigned(entry), answered, true);
}

/** Returns the entry with `keyId` and `signature` set. */
export function signEntry<E extends LedgerEntry>(
  key: string,
  sessionId: string,
  entry: E,
  answered: LedgerEntry | undefined,
  ledger: LedgerName = ledgerOfKind(entry),
): E {
  const { keyId: _k, signature: _s, ...unsigned } = entry;
  const signature = nodeCrypto()
    .createHmac('sha256', key)
    .update(newPayload(ledger, sessionId, unsigned, answered))
    .digest('hex');
  return { ...unsigned, keyId: keyIdOf(key), signature } as E;
}

export type SignatureCheck = { ok: true } | { ok: false; why: string };

/** Checks one entry's signature against `key` (constant-time comparison). */
export function verifyEntry(
  key: string,
  sessionId: string,
  entry: LedgerEntry,
  answered: LedgerEntry | undefined,
  ledger: LedgerName = ledgerOfKind(entry),
): SignatureCheck {
  if (typeof entry.signature !== 'string' || entry.signature === '') {
    return { ok: false, why: 'it is not signed' };
  }
  if (entry.keyId !== keyIdOf(key)) {
    return { ok: false, why: 'it was signed with a different key' };
  }
  const payload = signingPayload(sessionId, entry, answered, ledger);
  if (typeof payload !== 'string') return payload;
  const expected = nodeCrypto().createHmac('sha256', key).update(payload).digest();
  const given = Buffer.from(entry.signature, 'hex');
  if (given.length !== expected.length || !nodeCrypto().timingSafeEqual(given, expected)) {
    return {
      ok: false,
      why: 'its signature does not match its content (the entry was edited or copied)',
    };
  }
  return { ok: true };
}
