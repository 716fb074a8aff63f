import { readdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { isValidSessionId } from '@agate/core/stores';
import { ExitCode } from '../errors.js';
import { formatTable } from '../format/table.js';
import type { CliIo } from '../io.js';
import { loadStoredSession, openStore, type StoreRef } from '../sessions/stored-session.js';
import {
  SESSION_TABLE_HEADERS,
  type SessionRow,
  sessionCells,
  sessionRow,
} from '../sessions/summary.js';

export interface SessionsOptions {
  store: string;
  /** Also list ContinueGate restore points (`<session>@tick-N`). */
  all?: boolean;
  json?: boolean;
  /** One page: at most this many sessions, by id (with `after`, `status`). */
  limit?: number;
  /** The page starts after this session id. */
  after?: string;
  /** Only sessions with this status. */
  status?: string;
}

/** `agate sessions`: a table of the stored sessions, oldest save first. */
export async function sessionsCommand(io: CliIo, options: SessionsOptions): Promise<number> {
  const ref = await openStore(options.store);
  try {
    return await listSessions(io, ref, options);
  } finally {
    await ref.close?.();
  }
}

async function listSessions(io: CliIo, ref: StoreRef, options: SessionsOptions): Promise<number> {
  const { limit, after, status } = options;
  const paged = limit !== undefined || after !== undefined || status !== undefined;
  const page = {
    ...(limit !== undefined ? { limit } : {}),
    ...(after !== undefined ? { after } : {}),
    ...(status !== undefined ? { status } : {}),
  };
  const rows: SessionRow[] = [];
  const listed = new Set<string>();
  // A page (by id) when asked for one; a store that cannot page returns every session.
  for (const summary of await ref.store.list(paged ? page : undefined)) {
    listed.add(summary.id);
    try {
      rows.push(sessionRow(await loadStoredSession(ref, summary.id)));
    } catch (error) {
      // Deleted or damaged since it was listed, or holding a state that is not a session's.
      warnUnreadable(io, error);
    }
  }
  if (options.all) {
    for (const point of (await ref.store.listRestorePoints?.()) ?? []) {
      try {
        rows.push(sessionRow(await loadStoredSession(ref, point.ref)));
      } catch (error) {
        warnUnreadable(io, error);
      }
    }
  }
  // The store's list() skips files it cannot parse, so that one bad file hides nothing else;
  // say which ones were skipped and why, instead of leaving them out silently.
  for (const id of paged ? [] : await unlistedIds(ref, listed)) {
    await loadStoredSession(ref, id).catch((error: unknown) => warnUnreadable(io, error));
  }

  const shown = options.all ? rows : rows.filter((r) => r.kind === 'session');
  if (options.json) {
    io.out(`${JSON.stringify(shown, null, 2)}\n`);
    return ExitCode.ok;
  }
  if (rows.length === 0) {
    io.out(`No sessions in ${ref.dir}.\n`);
    return ExitCode.ok;
  }
  io.out(`${formatTable(SESSION_TABLE_HEADERS, shown.map(sessionCells))}\n`);
  const hidden = options.all ? 0 : ((await ref.store.listRestorePoints?.()) ?? []).length;
  if (hidden > 0) {
    io.out(
      `(${hidden} ContinueGate restore point${hidden === 1 ? '' : 's'} not shown; --all lists them.)\n`,
    );
  }
  return ExitCode.ok;
}

function warnUnreadable(io: CliIo, error: unknown): void {
  io.err(
    `warning: skipped an unreadable file: ${error instanceof Error ? error.message : String(error)}\n`,
  );
}

async function unlistedIds(ref: StoreRef, listed: ReadonlySet<string>): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(resolve(ref.dir));
  } catch {
    return [];
  }
  return names
    .filter((name) => name.endsWith('.json'))
    .map((name) => name.slice(0, -'.json'.length))
    .filter((id) => isValidSessionId(id) && !listed.has(id))
    .sort();
}
