import { AgateError, nameErrorClass } from '../../ground/agate-error.js';
import type { RunStatus } from '../../state/session-state.js';

/**
 * A sub-agent's child run ended without an answer (`blocked`, `error`, `max-ticks`, `stopped`,
 * `aborted`, ...). Thrown from the sub-agent tool, so the parent's model reads it as that call's
 * tool error: never a silent success.
 */
export class SubAgentError extends AgateError {
  static {
    nameErrorClass(SubAgentError, 'SubAgentError');
  }
  constructor(
    /** The `<SubAgent>`'s name. */
    readonly subAgent: string,
    /** How the child run ended. */
    readonly status: RunStatus,
    /** Why the child run ended. */
    readonly reason: string,
  ) {
    super(`Sub-agent "${subAgent}" ended ${status}, without an answer: ${reason}`);
  }
}

/** An approval or rejection named a sub-agent path that does not lead to a running child. */
export class UnknownSubAgentPathError extends AgateError {
  static {
    nameErrorClass(UnknownSubAgentPathError, 'UnknownSubAgentPathError');
  }
}
