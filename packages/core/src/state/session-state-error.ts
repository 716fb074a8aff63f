import { AgateError, nameErrorClass } from '../ground/agate-error.js';

/**
 * A session method was called in a state where it cannot run (for example two concurrent runs),
 * or a hook read the session outside one. Here, below the runtime, because both the runtime and
 * the components that read the session's state throw it.
 */
export class SessionStateError extends AgateError {
  static {
    nameErrorClass(SessionStateError, 'SessionStateError');
  }
}
