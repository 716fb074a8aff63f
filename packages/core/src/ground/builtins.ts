/**
 * Node's built-in modules that only some features use (the shell's sandbox and network proxy,
 * reading a check's output), loaded when first used instead of when `@agate/core` is imported:
 * `child_process`, `net`, `dns` and `util` cost a plain agent's import about 16 ms of CPU (issue 51
 * item 4). `process.getBuiltinModule` is synchronous, so the callers stay as they were.
 * (`fs/promises` is not here: importing `node:fs`, which the stores need, loads it anyway.)
 */
export const childProcess = (): typeof import('node:child_process') =>
  process.getBuiltinModule('node:child_process');

export const nodeNet = (): typeof import('node:net') => process.getBuiltinModule('node:net');

export const dnsPromises = (): typeof import('node:dns/promises') =>
  process.getBuiltinModule('node:dns/promises');

export const nodeUtil = (): typeof import('node:util') => process.getBuiltinModule('node:util');
