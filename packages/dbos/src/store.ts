import type { SessionStore } from '@agate/core';
import { createPostgresStore } from '@agate/postgres';

/** The PostgreSQL session store on the run database (its default schema), closed with the worker. */
export function storeForDatabase(databaseUrl: string): {
  store: SessionStore;
  close(): Promise<void>;
} {
  const store = createPostgresStore({ connectionString: databaseUrl });
  return { store, close: () => store.close() };
}
