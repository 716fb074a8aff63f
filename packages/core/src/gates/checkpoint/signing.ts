import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CheckpointLedgerEntry } from './types.js';

/** Environment variable read when no `approvalKey` / `key` is given. */
export const APPROVAL_KEY_ENV = 'AGATE_APPROVAL_KEY';

const PAYLOAD_TAG = 'agate.checkpoint-ledger/1';

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
  return createHmac('sha256', key).update('agate.approval-key-id').digest('hex').slice(0, 16);
}

/** The entry's own fields in a fixed order (what a signature covers), without its signature. */
function fieldsOf(entry: CheckpointLedgerEntry): unknown[] {
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
  ];
}

/**
 * The signed text: the session id, the entry (checkpoint, decision, who, when, note or feedback,
 * its place in the ledger) and, for a decision, the whole entry it answers. Editing any of these,
 * or copying the entry to another checkpoint, session or submission, breaks the signature.
 */
export function signingPayload(
  sessionId: string,
  entry: CheckpointLedgerEntry,
  answered: CheckpointLedgerEntry | undefined,
): string {
  return JSON.stringify([
    PAYLOAD_TAG,
    sessionId,
    fieldsOf(entry),
    answered === undefined ? null : fieldsOf(answered),
  ]);
}

/** Returns the entry with `keyId` and `signature` set. */
export function signEntry(
  key: string,
  sessionId: string,
  entry: CheckpointLedgerEntry,
  answered: CheckpointLedgerEntry | undefined,
): CheckpointLedgerEntry {
  const { keyId: _k, signature: _s, ...unsigned } = entry;
  const signature = createHmac('sha256', key)
    .update(signingPayload(sessionId, unsigned, answered))
    .digest('hex');
  return { ...unsigned, keyId: keyIdOf(key), signature };
}

export type SignatureCheck = { ok: true } | { ok: false; why: string };

/** Checks one entry's signature against `key` (constant-time comparison). */
export function verifyEntry(
  key: string,
  sessionId: string,
  entry: CheckpointLedgerEntry,
  answered: CheckpointLedgerEntry | undefined,
): SignatureCheck {
  if (typeof entry.signature !== 'string' || entry.signature === '') {
    return { ok: false, why: 'it is not signed' };
  }
  if (entry.keyId !== keyIdOf(key)) {
    return { ok: false, why: 'it was signed with a different key' };
  }
  const expected = createHmac('sha256', key)
    .update(signingPayload(sessionId, entry, answered))
    .digest();
  const given = Buffer.from(entry.signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return {
      ok: false,
      why: 'its signature does not match its content (the entry was edited or copied)',
    };
  }
  return { ok: true };
}
