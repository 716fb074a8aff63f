/** The step of a tick that failed, as named in a run's `error` reason. */
export type FaultStep = 'render' | 'guard' | 'model call' | 'tool' | 'store';

/**
 * The key of an error class's marker, `Symbol.for('agate.error.<ClassName>')`: registered
 * symbols are one per process, so every copy of a package (the CLI's `@agate/core` and an
 * agent's, a store package's own) agrees on them, where `instanceof` compares class objects.
 */
const markerOf = (className: string): symbol => Symbol.for(`agate.error.${className}`);

/**
 * Names an error class with a string literal, from a static block in its body:
 * `static { nameErrorClass(StaleSessionError, 'StaleSessionError'); }`. The literal becomes the class's
 * `name` (so `error.name`) and the key of its `isInstance` marker, so a bundler that minifies
 * class names (esbuild `--minify`, terser) changes neither: two minified copies still tell each
 * other's errors apart. A subclass without one keeps its own class name, as before.
 */
export function nameErrorClass(
  errorClass: abstract new (...args: never[]) => AgateError,
  name: string,
): void {
  Object.defineProperty(errorClass, 'name', { value: name, configurable: true });
}

/**
 * Typed errors. Every error says what went wrong and what would fix it, because agent authors
 * mostly meet these in a failed run, far from the line that caused them.
 *
 * Tell them apart with `isInstance`, not `instanceof`: `StaleSessionError.isInstance(error)`
 * holds for a `StaleSessionError` (or a subclass) made by any copy of the package.
 */
export class AgateError extends Error {
  static {
    nameErrorClass(AgateError, 'AgateError');
  }

  /** Set when this error ended a run: the tick it happened in (1-based over the session's life). */
  declare tick?: number;
  /** Set when this error ended a run: the step of the tick that failed. */
  declare step?: FaultStep;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    markClasses(new.target.prototype);
  }

  /**
   * Whether `value` is an error of this class or of a subclass, made by any copy of the package
   * that defines it (`instanceof` is false for another copy's errors). A subclass needs nothing
   * of its own: `MissingApprovalKeyError.isInstance(e)` checks for it, `ApprovalKeyError.isInstance(e)`
   * for it or its subclasses.
   */
  static isInstance<T extends abstract new (...args: never[]) => AgateError>(
    this: T,
    value: unknown,
  ): value is InstanceType<T> {
    if (typeof value !== 'object' || value === null) return false;
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class it is called on (a subclass), not AgateError.
    return (value as Record<symbol, unknown>)[markerOf(this.name)] === true;
  }
}

/**
 * Marks the prototype of each class from an error's own up to `AgateError` with that class's
 * marker, once per class (the first error of a class made marks it): an instance then carries,
 * through its prototype chain, the marker of every class it is an instance of.
 */
function markClasses(prototype: object): void {
  for (
    let at: object | null = prototype;
    at !== null && at !== Error.prototype;
    at = Object.getPrototypeOf(at)
  ) {
    const marker = markerOf((at as { constructor: { name: string } }).constructor.name);
    if (Object.hasOwn(at, marker)) return;
    Object.defineProperty(at, marker, { value: true });
  }
}
