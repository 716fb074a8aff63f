import { constants } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { generateApprovalKeyPair } from '@agate/core';
import { CliError, ExitCode } from '../errors.js';
import type { CliIo } from '../io.js';

export const PRIVATE_KEY_FILE = 'agate-approval.key';
export const PUBLIC_KEY_FILE = 'agate-approval.pub';

/**
 * `agate keys new`: an Ed25519 key pair. The private key (mode 0600) stays with whoever
 * approves; the run gets only the public key, so nothing a tool can read in the run's process
 * lets it sign a decision. Existing files are never overwritten.
 */
export async function keysNewCommand(io: CliIo, options: { out: string }): Promise<number> {
  const dir = resolve(options.out);
  const pair = generateApprovalKeyPair();
  await mkdir(dir, { recursive: true });
  const privatePath = join(dir, PRIVATE_KEY_FILE);
  const publicPath = join(dir, PUBLIC_KEY_FILE);
  await writeNew(privatePath, pair.privateKey, 0o600);
  await writeNew(publicPath, pair.publicKey, 0o644);
  io.out(
    `Wrote an approval key pair (key id ${pair.keyId}):\n` +
      `  ${privatePath}  private: keep it with whoever approves (mode 0600); never give it to a run\n` +
      `  ${publicPath}  public: give it to the run\n` +
      `Run the agent with:  AGATE_APPROVAL_PUBLIC_KEY=${publicPath} agate run <agent-file>\n` +
      `Approve with:        agate approve <session> <checkpoint> --by NAME --key-file ${privatePath}\n`,
  );
  return ExitCode.ok;
}

async function writeNew(path: string, text: string, mode: number): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    // O_EXCL: an existing key is never replaced (that would orphan every signed ledger).
    handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
    await handle.writeFile(text, 'utf8');
    await handle.chmod(mode);
  } catch (error) {
    if ((error as { code?: string }).code === 'EEXIST') {
      throw new CliError(
        `${path} already exists; agate keys new never overwrites a key. Choose another --out directory, or move the old pair away first.`,
        ExitCode.usage,
        { cause: error },
      );
    }
    throw error;
  } finally {
    await handle?.close();
  }
}
