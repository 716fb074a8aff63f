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

/** A JSX element the renderer cannot turn into model context (for example a DOM tag). */
export class InvalidElementError extends AgateError {
  static {
    nameErrorClass(InvalidElementError, 'InvalidElementError');
  }
}

/** A component threw while rendering the agent tree. */
export class RenderError extends AgateError {
  static {
    nameErrorClass(RenderError, 'RenderError');
  }
}

/** Two rendered `<Tool>`s share a name, so the model could not tell them apart. */
export class DuplicateToolError extends AgateError {
  static {
    nameErrorClass(DuplicateToolError, 'DuplicateToolError');
  }
}

/** A session method was called in a state where it cannot run (for example two concurrent runs). */
export class SessionStateError extends AgateError {
  static {
    nameErrorClass(SessionStateError, 'SessionStateError');
  }
}

/** The model call failed (provider error, network error, stream error). */
export class ModelCallError extends AgateError {
  static {
    nameErrorClass(ModelCallError, 'ModelCallError');
  }
  /** The provider's HTTP status, when the failure was an HTTP error. */
  declare statusCode?: number;
  /** Whether the provider said the request may be retried (429, 5xx, ...). */
  declare retryable?: boolean;
  /** How many times the request was sent (more than 1: the AI SDK retried it). */
  declare attempts?: number;
}

/** A gate can never be satisfied with what is rendered (for example a required tool is missing). */
export class GateDeadlockError extends AgateError {
  static {
    nameErrorClass(GateDeadlockError, 'GateDeadlockError');
  }
}

/** Knob or gate declarations that contradict each other or are invalid. */
export class KnobDeclarationError extends AgateError {
  static {
    nameErrorClass(KnobDeclarationError, 'KnobDeclarationError');
  }
}

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
