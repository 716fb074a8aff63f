import type { StepConfig } from '@dbos-inc/dbos-sdk';

const CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up)
  '08000',
  '08003',
  '08006',
  '08001',
  '08004',
]);

/** True when `error` (or an error it wraps) says the database connection was lost or refused. */
export function isConnectionError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e != null && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CODES.has(code)) return true;
    const message = String((e as { message?: unknown }).message ?? '');
    if (
      /Connection terminated|connection is closed|Client has encountered a connection error|database system is (shutting down|starting up)/i.test(
        message,
      )
    ) {
      return true;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

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
