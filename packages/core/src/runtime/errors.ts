/** The step of a tick that failed, as named in a run's `error` reason. */
export type FaultStep = 'render' | 'guard' | 'model call' | 'tool' | 'store';

/**
 * Typed errors. Every error says what went wrong and what would fix it, because agent authors
 * mostly meet these in a failed run, far from the line that caused them.
 */
export class AgateError extends Error {
  /** Set when this error ended a run: the tick it happened in (1-based over the session's life). */
  declare tick?: number;
  /** Set when this error ended a run: the step of the tick that failed. */
  declare step?: FaultStep;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A JSX element the renderer cannot turn into model context (for example a DOM tag). */
export class InvalidElementError extends AgateError {}

/** A component threw while rendering the agent tree. */
export class RenderError extends AgateError {}

/** Two rendered `<Tool>`s share a name, so the model could not tell them apart. */
export class DuplicateToolError extends AgateError {}

/** A session method was called in a state where it cannot run (for example two concurrent runs). */
export class SessionStateError extends AgateError {}

/** The model call failed (provider error, network error, stream error). */
export class ModelCallError extends AgateError {
  /** The provider's HTTP status, when the failure was an HTTP error. */
  declare statusCode?: number;
  /** Whether the provider said the request may be retried (429, 5xx, ...). */
  declare retryable?: boolean;
  /** How many times the request was sent (more than 1: the AI SDK retried it). */
  declare attempts?: number;
}

/** A gate can never be satisfied with what is rendered (for example a required tool is missing). */
export class GateDeadlockError extends AgateError {}

/** Knob or gate declarations that contradict each other or are invalid. */
export class KnobDeclarationError extends AgateError {}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}
