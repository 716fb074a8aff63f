import { firstLine } from '@agate/postgres';
import type { DLogger } from '@dbos-inc/dbos-sdk';
import type { DatabaseHealth } from './database-health.js';

/**
 * DBOS's own logging, routed through the worker: its many "connect ECONNREFUSED" lines while the
 * database is away become the health's two events; its other warnings and errors become one
 * line each (no stack trace); its info and debug lines are dropped below `level`; and nothing is
 * said while the worker stops (DBOS then reports the runs it leaves to other workers).
 */
export function dbosLogger(options: {
  health: DatabaseHealth;
  warn: (message: string) => void;
  level: 'debug' | 'info' | 'warn' | 'error';
  quiet: () => boolean;
}): DLogger {
  const { health, warn, level, quiet } = options;
  const rank = { debug: 0, info: 1, warn: 2, error: 3 } as const;
  const say = (at: keyof typeof rank, entry: unknown) => {
    if (quiet() || rank[at] < rank[level]) return;
    // A connection failure (an error, or DBOS's text naming one) is the health's to report.
    if (health.suspect(entry) || (typeof entry === 'string' && health.suspect(new Error(entry)))) {
      return;
    }
    warn(`DBOS: ${firstLine(entry)}`);
  };
  return {
    debug: (entry) => say('debug', entry),
    info: (entry) => say('info', entry),
    warn: (entry) => say('warn', entry),
    error: (entry) => say('error', entry),
  };
}
