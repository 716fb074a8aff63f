/**
 * What could be read of a thrown value, as text. Never throws: a tool may throw anything (an
 * `Error` whose `message` getter throws, a revoked Proxy, `null`, a symbol), and reading it
 * must not turn one failed call into a failed run.
 */
export function errorMessage(error: unknown): string {
  if (error === null) return 'null was thrown';
  if (error === undefined) return 'undefined was thrown';
  if (typeof error === 'string') return error;
  if (typeof error === 'symbol')
    return `a symbol was thrown (${attempt(() => error.toString()) ?? 'unreadable'})`;
  if (typeof error !== 'object' && typeof error !== 'function') return String(error);
  const isError = attempt(() => error instanceof Error);
  if (isError === undefined) return 'an unreadable value was thrown (a revoked Proxy?)';
  if (isError) {
    const message = attempt(() => (error as Error).message);
    if (typeof message === 'string') return message;
    const name = attempt(() => (error as Error).name);
    return `${typeof name === 'string' ? name : 'Error'} (its message could not be read)`;
  }
  const json = attempt(() => JSON.stringify(error));
  if (typeof json === 'string') return json;
  return attempt(() => String(error)) ?? 'an unreadable value was thrown';
}

/** `read()`, or undefined when reading throws. */
function attempt<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/**
 * A thrown value that is safe to keep and inspect later (by guards, spans, the host): the value
 * itself when it is a readable `Error`, otherwise an `Error` holding what could be read of it.
 */
export function safeThrown(error: unknown): unknown {
  const readable = attempt(() => error instanceof Error && typeof error.message === 'string');
  if (readable === true) return error;
  if (error !== null && (typeof error === 'object' || typeof error === 'function')) {
    return new Error(errorMessage(error));
  }
  return error;
}
