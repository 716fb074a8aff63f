import { AgateError, nameErrorClass } from '../ground/agate-error.js';

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
