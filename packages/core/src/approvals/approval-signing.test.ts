import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateApprovalKeyPair, toPrivateKey, toPublicKey } from './approval-signing.js';

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
