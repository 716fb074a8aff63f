import { createPostgresStore, type PostgresStore } from '@agate/postgres';
import type pg from 'pg';

/** The PostgreSQL session store on the run database (its default schema), on the worker's pool. */
export function storeForDatabase(pool: pg.Pool): PostgresStore {
  return createPostgresStore({ pool });
}
