import type { SessionStore } from '@agate/core';
import { DurableRunError } from './errors.js';

/** The PostgreSQL session store on the run database (default schema), closed with the worker. */
export function storeForDatabase(_databaseUrl: string): {
  store: SessionStore;
  close(): Promise<void>;
} {
  throw new DurableRunError('The PostgreSQL store is not available yet; pass `store`.');
}
