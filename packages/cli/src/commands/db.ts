import type { PostgresStore } from '@agate/postgres';
import { CliError, ExitCode, type ExitCodeValue } from '../errors.js';
import { shellQuote } from '../format/shell-quote.js';
import type { CliIo } from '../io.js';
import { importOptional } from '../optional-package.js';
import { isPostgresUrl, openStore } from '../sessions/stored-session.js';

export interface MigrateOptions {
  store: string;
}

/** `agate db migrate --store postgres://…`: applies the Postgres store's migrations now. */
export async function migrateCommand(io: CliIo, options: MigrateOptions): Promise<number> {
  if (!isPostgresUrl(options.store)) {
    throw new CliError(
      `agate db migrate needs a Postgres store: --store postgres://user@host/db (got ${JSON.stringify(options.store)}). A directory store needs no migration.`,
      ExitCode.usage,
    );
  }
  const ref = await openStore(options.store);
  const store = ref.store as PostgresStore;
  try {
    const result = await store.migrate();
    io.out(
      result.applied.length === 0
        ? `Schema "${result.schema}" in ${ref.dir} is up to date (migration ${result.version}).\n`
        : `Applied migration${result.applied.length === 1 ? '' : 's'} ${result.applied.join(', ')} to schema "${result.schema}" in ${ref.dir}.\n`,
    );
    return ExitCode.ok;
  } catch (error) {
    throw new CliError(
      `Could not migrate ${ref.dir}: ${error instanceof Error ? error.message : String(error)}`,
      ExitCode.runFailed,
      { cause: error },
    );
  } finally {
    await ref.close?.();
  }
}

/**
 * `agate db create <url>`: the database the URL names, created when missing (what `createdb`
 * does, without psql), then its tables: the session store's and, with `@agate/dbos` installed,
 * those of durable runs (DBOS's and Agate's). Run again, it changes nothing.
 */
export async function createCommand(io: CliIo, url: string | undefined): Promise<number> {
  const databaseUrl = url ?? (io.env.DATABASE_URL || undefined);
  if (databaseUrl === undefined || !isPostgresUrl(databaseUrl)) {
    throw new CliError(
      'agate db create needs the database to create: agate db create postgres://user@host:5432/agents (or DATABASE_URL).',
      ExitCode.usage,
    );
  }
  const postgres = await importOptional(
    '@agate/postgres',
    () => import('@agate/postgres'),
    'create a database with agate db create',
  );
  const target = postgres.connectionTarget(databaseUrl);
  const failed = (error: unknown, doing: string, code: ExitCodeValue): CliError => {
    const problem = postgres.connectionProblem(error);
    return new CliError(
      problem !== undefined
        ? postgres.describeConnectionProblem(problem, target, error)
        : error instanceof postgres.CreateDatabaseError
          ? error.message
          : `${doing} failed: ${postgres.firstLine(error)}`,
      problem !== undefined || error instanceof postgres.CreateDatabaseError
        ? ExitCode.usage
        : code,
      { cause: error },
    );
  };
  const made = await postgres.createDatabase(databaseUrl).catch((error: unknown) => {
    throw failed(error, `creating database "${target.database}"`, ExitCode.usage);
  });
  io.out(
    made.created
      ? `Created database "${made.database}" on ${serverAt(target)}.\n`
      : `Database "${made.database}" exists on ${serverAt(target)}.\n`,
  );
  const ref = await openStore(databaseUrl);
  try {
    const result = await (ref.store as PostgresStore).migrate();
    io.out(
      result.applied.length === 0
        ? `Session store (schema "${result.schema}"): up to date (migration ${result.version}).\n`
        : `Session store (schema "${result.schema}"): applied migration${result.applied.length === 1 ? '' : 's'} ${result.applied.join(', ')}.\n`,
    );
  } catch (error) {
    throw failed(error, 'migrating the session store', ExitCode.runFailed);
  } finally {
    await ref.close?.();
  }
  // Optional: without @agate/dbos only the store's tables are made.
  const dbos = await import('@agate/dbos').catch((error: unknown) => {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return undefined;
    throw error;
  });
  if (dbos !== undefined) {
    try {
      await dbos.prepareDatabase(databaseUrl);
    } catch (error) {
      throw failed(error, "creating durable runs' tables", ExitCode.runFailed);
    }
    io.out("Durable runs: DBOS's tables and Agate's (schema agate_dbos) are ready.\n");
  }
  io.out(`Next: agate worker <agents-file> --store ${shellQuote(target.url)}\n`);
  return ExitCode.ok;
}

/** `host:port`, or the socket directory and port of a Unix-socket URL (`?host=/run/postgresql`). */
function serverAt(target: { host: string; port: string }): string {
  return target.host.startsWith('/')
    ? `the Unix socket in ${target.host} (port ${target.port})`
    : `${target.host}:${target.port}`;
}
