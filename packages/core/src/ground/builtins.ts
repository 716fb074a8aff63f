/**
 * Node's built-in modules that only some features use (the shell's sandbox and network proxy,
 * reading a check's output, the file store's and the shell's random names, hashes and signed
 * approvals), loaded when first used instead of when `@agate/core` is imported: `child_process`,
 * `net`, `dns` and `util` cost a plain agent's import about 16 ms of CPU, `crypto` 8-12 ms more
 * (an ESM import of it also reads every lazy export, webcrypto included; issue 51 item 4). `process.getBuiltinModule` is synchronous, so the callers stay as they were.
 * (`fs/promises` is not here: importing `node:fs`, which the stores need, loads it anyway.)
 */
export const childProcess = (): typeof import('node:child_process') =>
  process.getBuiltinModule('node:child_process');

export const nodeNet = (): typeof import('node:net') => process.getBuiltinModule('node:net');

export const dnsPromises = (): typeof import('node:dns/promises') =>
  process.getBuiltinModule('node:dns/promises');

export const nodeCrypto = (): typeof import('node:crypto') =>
  process.getBuiltinModule('node:crypto');

export const nodeUtil = (): typeof import('node:util') => process.getBuiltinModule('node:util');
