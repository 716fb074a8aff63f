/**
 * Typed errors. Every error says what went wrong and what would fix it, because agent authors
 * mostly meet these in a failed run, far from the line that caused them.
 */
export class AgateError extends Error {
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
export class ModelCallError extends AgateError {}

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
