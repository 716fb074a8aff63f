import { formatConnectionUrl, hostOf, parseConnectionUrl } from './connection-url.js';

/**
 * What a failed connection to PostgreSQL means for the person running Agate: lost or refused
 * (retry later, check the address), no such database (create it), a refused role (fix the URL).
 * Shared by the store, the durable workers and the CLI, so they say the same thing.
 */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up)
  '08000',
  '08003',
  '08006',
  '08001',
  '08004',
]);

/** True when `error` (or an error it wraps) says the database connection was lost or refused. */
export function isConnectionError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e != null && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
    const message = String((e as { message?: unknown }).message ?? '');
    if (
      /\b(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|ENOTFOUND|EAI_AGAIN)\b|Connection terminated|connection is closed|Client has encountered a connection error|terminating connection due to administrator command|database system is (shutting down|starting up|in recovery mode|not yet accepting connections)|timeout exceeded when trying to connect/i.test(
        message,
      )
    ) {
      return true;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** Why a worker could not use its database, in the terms of what fixes it. */
export type ConnectionProblem =
  /** The server answered, but has no database of that name. */
  | 'missing-database'
  /** Nothing answered at that host and port (refused, unknown host, timed out). */
  | 'unreachable'
  /** The server refused the role or its password. */
  | 'auth';

/** Where a connection string points, with any password left out (for messages). */
export interface ConnectionTarget {
  /** `postgres://user@host:port/database`, without the password. */
  url: string;
  host: string;
  port: string;
  database: string;
  user: string;
}

export function connectionTarget(databaseUrl: string): ConnectionTarget {
  try {
    const u = parseConnectionUrl(databaseUrl);
    const database = decodeURIComponent(u.pathname.replace(/^\//, '')) || 'postgres';
    // The query's user/host/port win over the URL's, as in the driver (libpq's rule too).
    const user = u.searchParams.get('user') || decodeURIComponent(u.username) || 'postgres';
    const host = hostOf(u);
    const port = u.searchParams.get('port') || u.port || '5432';
    u.password = '';
    if (u.searchParams.has('password')) u.searchParams.set('password', '***');
    return { url: formatConnectionUrl(u), host, port, database, user };
  } catch {
    return { url: '(not a URL)', host: '?', port: '?', database: '?', user: '?' };
  }
}

const PROBLEM_CODES: Record<string, ConnectionProblem> = {
  '3D000': 'missing-database', // invalid_catalog_name
  '28P01': 'auth', // invalid_password
  '28000': 'auth', // invalid_authorization_specification (no such role, pg_hba)
};

/** The problem `error` (a failed connect or query) shows, or undefined for another failure. */
export function connectionProblem(error: unknown): ConnectionProblem | undefined {
  for (let e: unknown = error, depth = 0; e != null && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && PROBLEM_CODES[code] !== undefined) return PROBLEM_CODES[code];
    e = (e as { cause?: unknown }).cause;
  }
  if (isConnectionError(error)) return 'unreachable';
  const message = String((error as { message?: unknown } | null)?.message ?? error);
  if (/timeout expired|timeout exceeded when trying to connect/i.test(message)) {
    return 'unreachable';
  }
  return undefined;
}

/** One sentence: what went wrong and what to do about it. */
export function describeConnectionProblem(
  problem: ConnectionProblem,
  target: ConnectionTarget,
  error: unknown,
): string {
  const why = firstLine(error);
  switch (problem) {
    case 'missing-database': {
      // The server names the database it did not find; it may not be the URL's (a
      // maintenance database, or one a library derived), so the message names that one.
      const missing = missingDatabaseName(error) ?? target.database;
      const url = missing === target.database ? target.url : withDatabase(target.url, missing);
      return (
        `database "${missing}" does not exist on ${target.host}:${target.port}. ` +
        `Create it with \`agate db create ${shellQuote(url)}\` (or \`createdb ${shellQuote(missing)}\`), then start the worker again.`
      );
    }
    case 'auth':
      return (
        `PostgreSQL at ${target.host}:${target.port} refused role "${target.user}" (${why}). ` +
        'Check the user and password in the URL, and that the role exists.'
      );
    case 'unreachable':
      return (
        `nothing answers at ${target.host}:${target.port} (${why}). ` +
        `Check the URL (${target.url}) and that PostgreSQL runs there; docs/durable.md says where to get one.`
      );
  }
}

/** The database PostgreSQL's 3D000 message names (`database "x" does not exist`). */
function missingDatabaseName(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e != null && depth < 5; depth++) {
    const message = String((e as { message?: unknown }).message ?? '');
    const named = /database "((?:[^"]|"")*)" does not exist/.exec(message)?.[1];
    if (named !== undefined) return named.replaceAll('""', '"');
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function withDatabase(url: string, database: string): string {
  try {
    const u = parseConnectionUrl(url);
    u.pathname = `/${encodeURIComponent(database)}`;
    return formatConnectionUrl(u);
  } catch {
    return url;
  }
}

/**
 * A word for a POSIX shell, quoted only when it needs to be: a suggested command is pasted as
 * it is printed, and a URL's `?`, `&` or `$(…)` would otherwise be read by the shell.
 */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The first line of an error's message (a driver's error may carry more). */
export function firstLine(error: unknown): string {
  const message =
    error instanceof AggregateError && error.errors.length > 0
      ? String((error.errors[0] as Error)?.message ?? error.message)
      : String((error as { message?: unknown } | null)?.message ?? error);
  return (message.split('\n')[0] ?? '').trim() || String((error as { code?: unknown })?.code);
}
