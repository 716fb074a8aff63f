import { AgateError, nameErrorClass } from '@agate/core';
import type { ConnectionProblem } from '@agate/postgres';

/** A durable run was asked for something its state does not allow (see the message). */
export class DurableRunError extends AgateError {
  static {
    nameErrorClass(DurableRunError, 'DurableRunError');
  }
}

/** `startRun` named an agent the workers do not have. */
export class UnknownAgentError extends AgateError {
  static {
    nameErrorClass(UnknownAgentError, 'UnknownAgentError');
  }
  constructor(agent: string, known: readonly string[]) {
    super(
      `No agent named "${agent}" is registered with this worker (known: ${known.length > 0 ? known.join(', ') : 'none'}). ` +
        'Start workers with the same agents file the client names agents from.',
    );
  }
}

/** `getRun` / `cancelRun` for a session that has no durable run. */
export class RunNotFoundError extends AgateError {
  static {
    nameErrorClass(RunNotFoundError, 'RunNotFoundError');
  }
  constructor(sessionId: string) {
    super(
      `Session "${sessionId}" has no durable run in this database. Start one with client.startRun({ agent, sessionId, input }).`,
    );
  }
}

/** `startRun` for a session whose previous run has not ended. */
export class RunActiveError extends AgateError {
  static {
    nameErrorClass(RunActiveError, 'RunActiveError');
  }
  constructor(sessionId: string, status: string) {
    super(
      `Session "${sessionId}" already has a run that has not ended (${status}). ` +
        'Wait for it (getRun(sessionId).result()) or cancel it (cancelRun(sessionId)) before starting another.',
    );
  }
}

/** A second `launchWorker` in one process (DBOS keeps one executor per process). */
export class WorkerRunningError extends AgateError {
  static {
    nameErrorClass(WorkerRunningError, 'WorkerRunningError');
  }
  constructor() {
    super(
      'A worker is already running in this process; DBOS runs one executor per process. ' +
        'Call shutdown() on it first, or start another process for another worker.',
    );
  }
}

/**
 * `launchWorker` could not use its database: it does not exist, nothing answers at its address,
 * or the server refused the role. The message says which and what to do; `problem` says it to
 * code. Nothing was started.
 */
export class DatabaseUnavailableError extends AgateError {
  static {
    nameErrorClass(DatabaseUnavailableError, 'DatabaseUnavailableError');
  }
  constructor(
    readonly problem: ConnectionProblem,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * `launchWorker` reached its database but could not create the tables it needs there (DBOS's,
 * the session store's, Agate's): most often a role without the right to create schemas.
 * Nothing was started.
 */
export class DatabaseMigrationError extends AgateError {
  static {
    nameErrorClass(DatabaseMigrationError, 'DatabaseMigrationError');
  }
}

/**
 * A run request that no worker may run: not the shape `startRun` sends, an input over the
 * limits (`RUN_REQUEST_LIMITS`), or a workflow id that does not belong to its session (a
 * workflow enqueued on DBOS's queue by hand). Nothing of it ran; `reason` says what is wrong.
 */
export class InvalidRunRequestError extends AgateError {
  static {
    nameErrorClass(InvalidRunRequestError, 'InvalidRunRequestError');
  }
  constructor(
    /** What was wrong, in words: an offending field name is quoted and cut short, input values never. */
    readonly reason: string,
  ) {
    super(`Refused a durable run request: ${reason}. Nothing was run.`);
  }
}

/**
 * A recovered run reached a recorded step by another name than the one it recorded there: the
 * agent's code changed in a way that replays differently (docs/durable.md, "Upgrades"). The
 * run stops rather than hand one call's answer to another.
 */
export class StepOrderError extends AgateError {
  static {
    nameErrorClass(StepOrderError, 'StepOrderError');
  }
  constructor(workflowId: string, index: number, recorded: string, now: string) {
    super(
      `Run ${workflowId} recorded "${recorded}" as its step ${index}, but its replay asked for "${now}" there. ` +
        'The agent changed in a way that replays differently: run changed agents under a new applicationVersion.',
    );
  }
}
