import { AgateError, nameErrorClass } from '../../ground/agate-error.js';
import { errorMessage } from '../../ground/thrown.js';

/** A `defineGuard` definition that cannot work (a bad name, a hook that is not a function, ...). */
export class GuardDefinitionError extends AgateError {
  static {
    nameErrorClass(GuardDefinitionError, 'GuardDefinitionError');
  }
}

/** A guard's hook threw (or answered something that is not an answer); the run ends `error`. */
export class GuardHookError extends AgateError {
  static {
    nameErrorClass(GuardHookError, 'GuardHookError');
  }
  constructor(
    /** The guard whose hook threw. */
    readonly guard: string,
    /** The hook that threw (`onToolCall`, `onTickEnd`, ...). */
    readonly hook: string,
    cause: unknown,
  ) {
    super(
      `Guard "${guard}": ${hook} threw: ${errorMessage(cause)}. Fix the hook; the run ended because a guard that fails cannot be trusted to guard anything.`,
      { cause },
    );
  }
}

/** A guard's state is not what its `stateSchema` says (restored from a snapshot, or set). */
export class GuardStateError extends AgateError {
  static {
    nameErrorClass(GuardStateError, 'GuardStateError');
  }
  constructor(
    /** The guard whose state was not JSON. */
    readonly guard: string,
    /** Where, from the session state: `state.guards.<name>.<path>`. */
    readonly path: string,
    problem: string,
    when: 'restored' | 'set',
  ) {
    super(
      when === 'restored'
        ? `Guard "${guard}": the state restored at ${path} ${problem}. The snapshot was written by another version of the guard or edited; fix the value or migrate it before restoring.`
        : `Guard "${guard}": setState gave ${path} a value that ${problem}. Give a value that matches the guard's stateSchema.`,
    );
  }
}
