import pg from 'pg';
import { formatConnectionUrl, parseConnectionUrl } from './connection-url.js';

export interface CreateDatabaseResult {
  database: string;
  /** False when it existed already. */
  created: boolean;
}

/** `createDatabase` could not make the database; the message says why and what to do. */
export class CreateDatabaseError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CreateDatabaseError';
  }
}

/**
 * Creates the database a connection string names, if it does not exist yet: what `createdb`
 * does, without psql. It connects to the database itself first (enough when it exists); else
 * to the server's maintenance database (`postgres`, else `template1`) with the same role, which
 * needs the CREATEDB right. Two processes creating it at once: one creates it, the other finds
 * it.
 */
export async function createDatabase(connectionString: string): Promise<CreateDatabaseResult> {
  const url = parseConnectionUrl(connectionString);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (database === '') {
    throw new CreateDatabaseError(
      `${connectionString.replace(/:[^:@/]*@/, ':***@')} names no database: add it to the path (postgres://user@host:5432/agents).`,
    );
  }
  try {
    await withClient(connectionString, async () => {});
    return { database, created: false };
  } catch (error) {
    if (codeOf(error) !== '3D000') throw error;
  }
  let lastError: unknown;
  for (const maintenance of ['postgres', 'template1']) {
    const admin = parseConnectionUrl(connectionString);
    admin.pathname = `/${maintenance}`;
    try {
      return await withClient(formatConnectionUrl(admin), async (client) => {
        const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [
          database,
        ]);
        if ((rowCount ?? 0) > 0) return { database, created: false };
        try {
          await client.query(`CREATE DATABASE ${quoteIdentifier(database)}`);
        } catch (error) {
          // Created by someone else between the look and the create.
          const code = codeOf(error);
          // 42P04 once it is committed, 23505 while the other CREATE is still in flight.
          if (code === '42P04' || code === '23505') return { database, created: false };
          if (code === '42501') {
            const role =
              url.searchParams.get('user') || decodeURIComponent(url.username) || 'this role';
            throw new CreateDatabaseError(
              `role "${role}" may not create databases. Ask the server's administrator to run ` +
                `CREATE DATABASE ${quoteIdentifier(database)} OWNER ${quoteIdentifier(role)} ` +
                `(or to give the role CREATEDB), then run this again.`,
              { cause: error },
            );
          }
          throw error;
        }
        return { database, created: true };
      });
    } catch (error) {
      if (error instanceof CreateDatabaseError || codeOf(error) !== '3D000') throw error;
      lastError = error;
    }
  }
  throw lastError;
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A name as a double-quoted SQL identifier (any characters; quotes doubled). */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
