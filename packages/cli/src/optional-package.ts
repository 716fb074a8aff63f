import { CliError, ExitCode } from './errors.js';

/**
 * Loads a package the CLI needs for one feature only (`@agate/postgres`, `@agate/dbos`,
 * `create-agate`): optional peers, not installed with `@agate/cli`, so a project that only runs
 * agents stays small. `load` is the `import()` itself, written out by the caller so bundlers
 * and type checks see the specifier. A missing package is a usage error that names what to
 * install; a package that is there but fails to load (one of its own imports missing, a syntax
 * error) keeps its own error.
 */
export async function importOptional<T>(
  name: string,
  load: () => Promise<T>,
  purpose: string,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isMissingPackage(error, name)) throw error;
    throw new CliError(
      `Install ${name} to ${purpose}: npm install ${name} (an optional peer of @agate/cli, not installed with it). ` +
        // Until the first release the registry answers 404: the tarball route works meanwhile.
        `Before Agate's first release: \`pnpm pack:all\` in a clone of Agate, then npm install <clone>/packed/${tarballFile(name)}.`,
      ExitCode.usage,
      { cause: error },
    );
  }
}

/** The file `pnpm pack:all` writes for a package: `@agate/postgres` → `agate-postgres-<version>.tgz`. */
function tarballFile(name: string): string {
  return `${name.replace(/^@/, '').replace('/', '-')}-<version>.tgz`;
}

/** Node's "Cannot find package 'NAME' imported from …", for NAME itself (not one of its dependencies). */
export function isMissingPackage(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  return (
    typeof message === 'string' && (message.includes(`'${name}'`) || message.includes(`"${name}"`))
  );
}
