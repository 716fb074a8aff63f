import {
  createFileStore,
  InvalidSessionIdError,
  type SessionSnapshot,
  type SessionState,
  type SessionStore,
  SnapshotError,
} from '@agate/core';
import { parseRestorePointRef, restoreSnapshotState } from '@agate/core/stores';
import { CliError, ExitCode } from '../errors.js';
import { importOptional } from '../optional-package.js';

/** A store directory as the commands use it: the store, and where it is (for messages). */
export interface StoreRef {
  store: SessionStore;
  /** The directory as the user gave it (or the default), for messages; a URL without its password. */
  dir: string;
  /** Ends the store's connections (a Postgres store's pool); nothing for a directory. */
  close?: () => Promise<void>;
}

/** `--store postgres://…` (or `postgresql://…`) names a Postgres database; anything else a directory. */
export function isPostgresUrl(store: string): boolean {
  return /^postgres(ql)?:\/\//i.test(store);
}

/**
 * A directory is a file store; a `postgres://` URL a Postgres store (`?schema=NAME` picks the
 * schema, default `agate`). The URL's password never appears in messages.
 */
export async function openStore(dir: string): Promise<StoreRef> {
  if (!isPostgresUrl(dir)) return { store: createFileStore(dir), dir };
  const { connectionString, schema } = splitSchema(dir);
  // Loaded only for a postgres:// URL: the driver (pg) is not needed for a directory, and
  // loading it would slow every `agate` command's start. An optional peer of the CLI.
  const { createPostgresStore } = await importOptional(
    '@agate/postgres',
    () => import('@agate/postgres'),
    'use a postgres:// store',
  );
  const store = createPostgresStore({ connectionString }, schema === undefined ? {} : { schema });
  return { store, dir: redactPassword(dir), close: () => store.close() };
}

/** The `schema` query parameter is ours, not the driver's: taken out of the URL. */
export function splitSchema(url: string): { connectionString: string; schema?: string } {
  // A role with no host (`postgres://user@/db?host=/run/postgresql`, a Unix socket) is not a
  // WHATWG URL: parsed with a stand-in host, put back empty (what the driver does too).
  const standIn = 'agate-no-host.invalid';
  const hostless = /^postgres(ql)?:\/\/[^/?#]*@\//i.test(url);
  try {
    const parsed = new URL(hostless ? url.replace('@/', `@${standIn}/`) : url);
    const schema = parsed.searchParams.get('schema') ?? undefined;
    if (schema === undefined) return { connectionString: url };
    parsed.searchParams.delete('schema');
    const connectionString = parsed.toString();
    return {
      connectionString: hostless
        ? connectionString.replace(`@${standIn}/`, '@/')
        : connectionString,
      schema,
    };
  } catch {
    return { connectionString: url };
  }
}

export function redactPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === '') return url;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
  }
}

/** One stored snapshot with its state checked: a session, or a ContinueGate restore point. */
export interface StoredSession {
  snapshot: SessionSnapshot;
  state: SessionState;
  /**
   * Set when this is a restore point (a ContinueGate checkpoint) of that session, named
   * `<session>@tick-<n>` (`ref`); restore points live apart from sessions in every store.
   */
  restorePointOf?: string;
  /** The restore point's name, `<session>@tick-<n>`, when this is one. */
  ref?: string;
}

/** Reads and checks one stored session; every way it can fail is a `CliError` with its exit code. */
export async function loadStoredSession(ref: StoreRef, id: string): Promise<StoredSession> {
  const point = parseRestorePointRef(id);
  if (point !== undefined) return loadRestorePoint(ref, id, point);
  let snapshot: SessionSnapshot | undefined;
  try {
    snapshot = await ref.store.load(id);
  } catch (error) {
    throw storeError(error, ref, id);
  }
  if (snapshot === undefined) {
    throw new CliError(
      `No session "${id}" in ${ref.dir}. Run \`agate sessions --store ${ref.dir}\` to list the stored sessions.`,
      ExitCode.notFound,
    );
  }
  return checkSnapshot(snapshot, ref);
}

async function loadRestorePoint(
  ref: StoreRef,
  name: string,
  point: { sessionId: string; tick: number },
): Promise<StoredSession> {
  let snapshot: SessionSnapshot | undefined;
  try {
    snapshot = await ref.store.loadRestorePoint?.(point.sessionId, point.tick);
  } catch (error) {
    throw storeError(error, ref, name);
  }
  if (snapshot === undefined) {
    throw new CliError(
      `No restore point "${name}" in ${ref.dir}. Run \`agate show ${point.sessionId} --store ${ref.dir}\` to list that session's restore points.`,
      ExitCode.notFound,
    );
  }
  return { ...checkSnapshot(snapshot, ref), restorePointOf: point.sessionId, ref: name };
}

/** Checks a snapshot's state has the shape of a session state (the same check `createSession` makes). */
export function checkSnapshot(snapshot: SessionSnapshot, ref: StoreRef): StoredSession {
  let state: SessionState;
  try {
    state = restoreSnapshotState<SessionState>(snapshot);
  } catch (error) {
    throw new CliError(
      `Session "${snapshot.id}" in ${ref.dir} cannot be read: ${messageOf(error)} ` +
        'Restore the file from a backup, or delete it.',
      ExitCode.corrupt,
      { cause: error },
    );
  }
  return { snapshot, state };
}

/** Maps what a store throws to the CLI's errors. */
export function storeError(error: unknown, ref: StoreRef, id: string): CliError {
  if (CliError.isInstance(error)) return error;
  if (InvalidSessionIdError.isInstance(error)) {
    return new CliError(error.message, ExitCode.usage, { cause: error });
  }
  if (SnapshotError.isInstance(error)) {
    return new CliError(error.message, ExitCode.corrupt, { cause: error });
  }
  return new CliError(
    `Could not read session "${id}" from ${ref.dir}: ${messageOf(error)}`,
    ExitCode.corrupt,
    { cause: error },
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
