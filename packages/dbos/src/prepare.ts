import { createPostgresStore } from '@agate/postgres';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { dbosDatabaseUrl } from './database-url.js';
import { ensureTables, resilientPool } from './tables.js';

/**
 * Creates every table durable runs need in an existing database — DBOS's system tables, the
 * session store's and Agate's own — as workers do when they start, under the same lock. For a
 * deploy step (`agate db create`), so that workers can run as a role without the right to
 * create them.
 */
export async function prepareDatabase(databaseUrl: string): Promise<void> {
  const pool = resilientPool(databaseUrl, 2);
  try {
    await ensureTables(pool, async () => {
      await DBOS.migrate(dbosDatabaseUrl(databaseUrl));
      await createPostgresStore({ pool }).migrate();
    });
  } finally {
    await pool.end();
  }
}
