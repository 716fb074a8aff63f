import { AgateError, nameErrorClass } from '../ground/agate-error.js';

/**
 * The sandbox cannot start (bubblewrap missing, user namespaces off). Never a silent fallback:
 * the command does not run, and the message names the fix.
 */
export class SandboxUnavailableError extends AgateError {
  static {
    nameErrorClass(SandboxUnavailableError, 'SandboxUnavailableError');
  }
}
