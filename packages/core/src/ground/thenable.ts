/** A value, or a promise of it: what a guard's or a hook's answer may be. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * Whether a value must be awaited: what `await` itself treats as a thenable (an object or a
 * function whose `then` is callable), so a hook's, a schema's or a tool's answer is awaited
 * exactly when awaiting it would change it.
 */
export function isThenable<T>(value: unknown): value is PromiseLike<T> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
