import {
  postgresBinDir,
  SHARED_POSTGRES_ENV,
  startPrivatePostgres,
} from './packages/testing/src/postgres.js';

/**
 * One private PostgreSQL for the whole test run, not one per test file: `startPostgres()` in a
 * test then creates a database of its own on it (packages/testing/src/postgres.ts). Tests that
 * restart or stop their server still start a private one (`{ private: true }`). Nothing is
 * started when `DATABASE_URL` names a server or PostgreSQL is not installed (those tests then
 * use `DATABASE_URL`, or skip).
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.DATABASE_URL || process.env[SHARED_POSTGRES_ENV] || !postgresBinDir()) {
    return undefined;
  }
  // Several files at once, each with its workers' and clients' pools.
  const server = await startPrivatePostgres({ maxConnections: 600 });
  process.env[SHARED_POSTGRES_ENV] = server.url;
  return async () => {
    delete process.env[SHARED_POSTGRES_ENV];
    await server.stop();
  };
}
