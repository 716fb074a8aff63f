import { DEFAULT_SESSIONS_DIR } from '@agate/core/stores';
import { InvalidArgumentError, Option } from 'commander';

/** The option parsers the `agate` commands share. */
/** `--key-file`: the private key a decision is signed with (approve, reject, deny). */
export const keyFileOption = () =>
  new Option(
    '--key-file <file>',
    'sign with this private key (agate keys new; or AGATE_APPROVAL_KEY_FILE)',
  );

export const storeOption = () =>
  new Option(
    '--store <dir|url>',
    'session store: a directory, or a postgres:// URL (?schema=NAME, default agate)',
  ).default(DEFAULT_SESSIONS_DIR);

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError('expected a whole number >= 1.');
  }
  return n;
}

/** A TCP port to listen on: what `server.listen` takes, checked before anything starts. */
export function portNumber(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1 || n > 65_535) {
    throw new InvalidArgumentError('expected a port number from 1 to 65535.');
  }
  return n;
}

export function wholeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0)
    throw new InvalidArgumentError('expected a whole number >= 0.');
  return n;
}
