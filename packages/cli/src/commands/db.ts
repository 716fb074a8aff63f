import type { PostgresStore } from '@agate/postgres';
import { CliError, ExitCode } from '../errors.js';
import type { CliIo } from '../io.js';
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
