import { isConnectionError } from '@agate/postgres';
import type { StepConfig } from '@dbos-inc/dbos-sdk';

export { isConnectionError } from '@agate/postgres';

/** A step's database work failed for want of a connection: the step is tried again. */
export class DatabaseDownError extends Error {
  constructor(cause: unknown) {
    super(`The database is unreachable; retrying: ${String((cause as Error)?.message ?? cause)}`, {
      cause,
    });
    this.name = 'DatabaseDownError';
  }
}

/** Runs a step's own database work; a lost connection becomes a `DatabaseDownError`. */
export async function databaseWork<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw isConnectionError(error) ? new DatabaseDownError(error) : error;
  }
}

/**
 * Steps of a durable run retry while the database is unreachable (a restart, a failover): the
 * run waits and goes on. Only the step's own database work (`databaseWork`, before the model
 * or tool call) is retried, so a retry repeats no call. About half an hour of attempts before
 * the run ends `error`.
 */
export const WHILE_DATABASE_DOWN: StepConfig = {
  retriesAllowed: true,
  intervalSeconds: 0.5,
  backoffRate: 1.5,
  maxAttempts: 20,
  shouldRetry: (error) => error instanceof DatabaseDownError,
};
