/**
 * A child process for the lock race (lock-dir.test.ts): says `ready`, waits for `go` on stdin,
 * then tries once to take the lock at <path>, breaking it if it is stale. The winner says
 * `won`, holds the lock until `release` on stdin, then says whether its lock was still in
 * place (`intact` or `removed`) and releases it. A loser says `lost`.
 */
import { createInterface } from 'node:readline';
import { takeLock } from '../lock-dir.js';
import { SessionLockError } from '../persistence-errors.js';

const [path] = process.argv.slice(2);
if (path === undefined) throw new Error('usage: lock-racer.ts <lock path>');

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
async function waitFor(word: string): Promise<void> {
  for (;;) {
    const line = await lines.next();
    if (line.done) throw new Error(`stdin ended before "${word}"`);
    if (line.value.trim() === word) return;
  }
}

process.stdout.write('ready\n');
await waitFor('go');
try {
  const lock = await takeLock(path, { waitMs: 0 });
  process.stdout.write('won\n');
  await waitFor('release');
  process.stdout.write((await lock.held()) ? 'intact\n' : 'removed\n');
  await lock.release();
} catch (error) {
  if (!SessionLockError.isInstance(error)) throw error;
  process.stdout.write('lost\n');
}
// Exits once the last line is written to the pipe (the readline on stdin would otherwise keep
// a loser alive until the test ends its stdin).
process.stdout.write('', () => process.exit(0));
