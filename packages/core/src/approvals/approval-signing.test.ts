import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  generateApprovalKeyPair,
  signEntry,
  signEntryEd25519,
  toPrivateKey,
  toPublicKey,
  verifyWith,
} from './approval-signing.js';
import type { CheckpointLedgerEntry, ToolLedgerEntry } from './ledger-types.js';

const dir = mkdtempSync(join(tmpdir(), 'agate-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('key files (toPrivateKey / toPublicKey with a path)', () => {
  it('reads a PEM key file by its path', () => {
    const keys = generateApprovalKeyPair();
    writeFileSync(join(dir, 'a.key'), keys.privateKey);
    writeFileSync(join(dir, 'a.pub'), keys.publicKey);
    expect(toPrivateKey(join(dir, 'a.key')).asymmetricKeyType).toBe('ed25519');
    expect(toPublicKey(join(dir, 'a.pub')).type).toBe('public');
  });

  it('refuses a large file without reading it whole (a binary named by an environment variable)', () => {
    const big = join(dir, 'big.bin');
    writeFileSync(big, Buffer.alloc(65 * 1024, 0x41));
    expect(() => toPrivateKey(big)).toThrow(
      /is not a key file: 66560 bytes, and a PEM key file is under 64 KiB/,
    );
    expect(() => toPublicKey(big)).toThrow(/ApprovalKeyError|not a key file/);
  });

  it('refuses a FIFO instead of blocking on it', () => {
    const fifo = join(dir, 'key.fifo');
    execFileSync('mkfifo', [fifo]);
    expect(() => toPrivateKey(fifo)).toThrow(/is not a key file: it is not a regular file/);
  });

  it('says what is wrong with a missing file', () => {
    expect(() => toPrivateKey(join(dir, 'missing.key'))).toThrow(
      /Could not read the private key file/,
    );
  });
});

describe('the ledger name in the signed payload', () => {
  const request: ToolLedgerEntry = {
    seq: 1,
    checkpoint: 'c-1',
    kind: 'tool-approval-request',
    by: 'runtime',
    at: '2026-12-01T00:00:00.000Z',
    tick: 1,
    toolName: 'pay',
    inputHash: 'ab',
    nonce: 'n',
  };
  const decision: ToolLedgerEntry = {
    ...request,
    seq: 2,
    kind: 'tool-approved',
    by: 'cfo',
    answers: 1,
  };

  it('an entry signed in one ledger does not verify in the other (shared secret and key pair)', () => {
    const hmac = signEntry('k', 's', decision, request, 'tool-calls');
    expect(verifyWith({ key: 'k' }, 's', hmac, request, 'tool-calls')).toEqual({ ok: true });
    expect(verifyWith({ key: 'k' }, 's', hmac, request, 'checkpoints')).toMatchObject({
      ok: false,
      why: expect.stringContaining('does not match its content'),
    });
    const pair = generateApprovalKeyPair();
    const signed = signEntryEd25519(toPrivateKey(pair.privateKey), 's', decision, request);
    const verifier = { publicKey: toPublicKey(pair.publicKey) };
    expect(verifyWith(verifier, 's', signed, request, 'tool-calls')).toEqual({ ok: true });
    expect(verifyWith(verifier, 's', signed, request, 'checkpoints').ok).toBe(false);
  });

  it('a migrated entry verifies in its version-2 form only, and only against a migrated request', () => {
    // As version 2 signed them: in the checkpoint ledger, at seq 3 and 5.
    const oldRequest = { ...request, seq: 3 };
    const oldDecision = signEntry(
      'k',
      's',
      { ...decision, seq: 5, answers: 3 },
      oldRequest,
      'checkpoints',
    );
    const migratedRequest = { ...oldRequest, seq: 1, signedAs: { ledger: 'checkpoints', seq: 3 } };
    const migrated: ToolLedgerEntry = {
      ...oldDecision,
      seq: 2,
      answers: 1,
      signedAs: { ledger: 'checkpoints', seq: 5, answers: 3 },
    };
    const check = (entry: ToolLedgerEntry, answered: ToolLedgerEntry) =>
      verifyWith({ key: 'k' }, 's', entry, answered, 'tool-calls');
    expect(check(migrated, migratedRequest as ToolLedgerEntry)).toEqual({ ok: true });
    expect(
      check(
        { ...migrated, signedAs: { ledger: 'checkpoints', seq: 4, answers: 3 } },
        migratedRequest as ToolLedgerEntry,
      ).ok,
    ).toBe(false);
    expect(check(migrated, { ...request, seq: 1 })).toMatchObject({
      ok: false,
      why: expect.stringContaining('answers an entry written since'),
    });
    // Without signedAs its new numbers are not what was signed.
    const { signedAs: _s, ...bare } = migrated;
    expect(check(bare, migratedRequest as ToolLedgerEntry).ok).toBe(false);
  });

  it('the same for a key pair: a migrated Ed25519 decision verifies in its version-2 form', () => {
    const pair = generateApprovalKeyPair();
    const oldRequest = { ...request, seq: 3 };
    const signed = signEntryEd25519(
      toPrivateKey(pair.privateKey),
      's',
      { ...decision, seq: 5, answers: 3 },
      oldRequest,
      'checkpoints',
    );
    const migratedRequest: ToolLedgerEntry = {
      ...oldRequest,
      seq: 1,
      signedAs: { ledger: 'checkpoints', seq: 3 },
    };
    const migrated: ToolLedgerEntry = {
      ...signed,
      seq: 2,
      answers: 1,
      signedAs: { ledger: 'checkpoints', seq: 5, answers: 3 },
    };
    const verifier = { publicKey: toPublicKey(pair.publicKey) };
    expect(verifyWith(verifier, 's', migrated, migratedRequest, 'tool-calls')).toEqual({
      ok: true,
    });
    // Moved into the checkpoint ledger, signedAs does not count: the new numbers are checked.
    expect(verifyWith(verifier, 's', migrated, migratedRequest, 'checkpoints').ok).toBe(false);
  });

  it('signedAs means nothing in the checkpoint ledger: a renumbered request does not keep its approval', () => {
    const submission: CheckpointLedgerEntry = {
      seq: 1,
      checkpoint: 'T-1',
      kind: 'submitted',
      by: 'model',
      at: '2026-12-01T00:00:00.000Z',
      tick: 1,
      nonce: 'n',
    };
    const approval = signEntry(
      'k',
      's',
      { ...submission, seq: 2, kind: 'approved', by: 'ana', answers: 1 } as CheckpointLedgerEntry,
      submission,
      'checkpoints',
    );
    const check = (answered: CheckpointLedgerEntry) =>
      verifyWith({ key: 'k' }, 's', approval, answered, 'checkpoints').ok;
    expect(check(submission)).toBe(true);
    const renumbered = { ...submission, seq: 7, signedAs: { ledger: 'checkpoints', seq: 1 } };
    expect(check(renumbered as CheckpointLedgerEntry)).toBe(false);
  });
});
