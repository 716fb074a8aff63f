import { isConnectionError } from '@agate/postgres';

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
