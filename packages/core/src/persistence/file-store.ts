import {
  appendFile,
  type FileHandle,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  unlink,
} from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { nodeCrypto } from '../ground/builtins.js';
import { errorMessage } from '../ground/thrown.js';
import type { TickRecord } from '../tick-log/tick-record.js';
import { withLock } from './lock-dir.js';
import { SnapshotError } from './persistence-errors.js';
import {
  assertRestorePoint,
  checkRevision,
  pageSummaries,
  type RestorePointSummary,
  restorePointRef,
  type SessionStore,
  type SessionSummary,
  sortRestorePoints,
  sortSummaries,
  summarize,
  summarizeRestorePoint,
} from './session-store.js';
import {
  assertValidSessionId,
  isValidSessionId,
  parseSnapshot,
  type SessionSnapshot,
  serializeSnapshot,
} from './snapshot.js';

/** Relative to the working directory when the store is created. */
export const DEFAULT_SESSIONS_DIR = '.agate/sessions';
/** Restore points, under the store's directory: `.restore-points/<session>/tick-<n>.json`. */
export const RESTORE_POINTS_DIR = '.restore-points';
/** Tick logs, under the store's directory: `.tick-logs/<session>.jsonl`, one record a line. */
export const TICK_LOGS_DIR = '.tick-logs';

/**
 * The default store: one `<id>.json` file per session, needing no setup. The directory is
 * created on first save, so merely constructing or reading never leaves files behind.
 *
 * Saves are atomic: the text goes to a temp file in the same directory, is fsynced, and is then
 * renamed over the target, so a crash or a failed write leaves the previous save intact.
 */
export function createFileStore(dir?: string): SessionStore {
  // Resolved now, so a later process.chdir() cannot move the sessions.
  const root = resolve(process.cwd(), dir ?? DEFAULT_SESSIONS_DIR);
  const fileFor = (id: string) => join(root, `${id}.json`);
  // Not `.json`: list() and readers never take a lock for a session (see lock-dir.ts).
  const lockFor = (id: string) => join(root, `${id}.lock`);
  // Session ids never start with ".", so this folder can never be (or hold) a session file.
  const pointsRoot = join(root, RESTORE_POINTS_DIR);
  const pointFile = (id: string, tick: number) => join(pointsRoot, id, `tick-${tick}.json`);

  const ticksRoot = join(root, TICK_LOGS_DIR);
  const ticksFile = (id: string) => join(ticksRoot, `${id}.jsonl`);

  return {
    async appendTicks(sessionId, records, replace) {
      assertValidSessionId(sessionId);
      const text = records.map((r) => `${JSON.stringify(r)}\n`).join('');
      await mkdir(ticksRoot, { recursive: true });
      // A record is observability, not state: an append (no fsync) is enough; a replace is atomic.
      if (replace) await writeAtomically(ticksFile(sessionId), text);
      else await appendFile(ticksFile(sessionId), text, 'utf8');
    },

    async loadTicks(sessionId) {
      assertValidSessionId(sessionId);
      return readTickLog(ticksFile(sessionId));
    },

    async saveRestorePoint(sessionId, tick, snapshot) {
      assertRestorePoint(sessionId, tick, snapshot);
      const text = serializeSnapshot(snapshot);
      const target = pointFile(sessionId, tick);
      try {
        await mkdir(join(pointsRoot, sessionId), { recursive: true });
        await writeAtomically(target, text);
      } catch (error) {
        throw new SnapshotError(
          `Could not save restore point ${restorePointRef(sessionId, tick)} to ${target}: ${errorMessage(error)}.`,
          { path: target, cause: error },
        );
      }
      await syncDirectory(join(pointsRoot, sessionId));
    },

    async loadRestorePoint(sessionId, tick) {
      assertRestorePoint(sessionId, tick);
      const path = pointFile(sessionId, tick);
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (error) {
        if (hasCode(error, 'ENOENT')) return undefined;
        throw error;
      }
      return checkedSnapshot(parseSnapshot(text, path), sessionId, path);
    },

    async listRestorePoints(sessionId) {
      return listRestorePointsIn(pointsRoot, sessionId);
    },

    async save(snapshot, options) {
      await saveSessionFile(root, fileFor, lockFor, snapshot, options);
    },

    async delete(id) {
      assertValidSessionId(id);
      const target = fileFor(id);
      let existed = false;
      await withLock(lockFor(id), async () => {
        try {
          await unlink(target);
          existed = true;
        } catch (error) {
          if (!hasCode(error, 'ENOENT')) throw error;
        }
      }).catch((error: unknown) => {
        // No directory yet: nothing is stored.
        if (!hasCode(error, 'ENOENT')) throw error;
      });
      await rm(join(pointsRoot, id), { recursive: true, force: true });
      await rm(ticksFile(id), { force: true });
      return existed;
    },

    async load(id) {
      assertValidSessionId(id);
      const path = fileFor(id);
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (error) {
        if (hasCode(error, 'ENOENT')) return undefined;
        throw error;
      }
      const snapshot = checkedSnapshot(parseSnapshot(text, path), id, path);
      // A file from before revisions counts as revision 1, as the save's compare counts it.
      return snapshot.revision === undefined ? { ...snapshot, revision: 1 } : snapshot;
    },

    async list(options) {
      return listSessionsIn(root, options);
    },
  };
}

/** Writes a session's file under its lock, after checking the revision the caller expects. */
async function saveSessionFile(
  root: string,
  fileFor: (id: string) => string,
  lockFor: (id: string) => string,
  snapshot: Parameters<SessionStore['save']>[0],
  options: Parameters<SessionStore['save']>[1],
): Promise<void> {
  // Serialize first: a snapshot that cannot be written must not touch the disk at all.
  serializeSnapshot(snapshot);
  const target = fileFor(snapshot.id);
  try {
    await mkdir(root, { recursive: true });
  } catch (error) {
    throw new SnapshotError(
      `Could not save session "${snapshot.id}" to ${target}: ${errorMessage(error)}.`,
      { path: target, cause: error },
    );
  }
  // The compare (which revision is stored) and the write happen under the session's lock
  // file, so no other process can save between them.
  await withLock(lockFor(snapshot.id), async () => {
    const stored = await storedRevision(target);
    checkRevision(snapshot.id, options, stored);
    const text = serializeSnapshot(snapshot, stored + 1);
    try {
      await writeAtomically(target, text);
    } catch (error) {
      throw new SnapshotError(
        `Could not save session "${snapshot.id}" to ${target}: ${errorMessage(error)}. ` +
          'The previous save, if any, is untouched.',
        { path: target, cause: error },
      );
    }
  });
  await syncDirectory(root);
}

/** A session's tick log; a line cut by a crash mid-append is skipped. */
async function readTickLog(file: string): Promise<TickRecord[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (hasCode(error, 'ENOENT')) return [];
    throw error;
  }
  const records: TickRecord[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      records.push(JSON.parse(line) as TickRecord);
    } catch {
      // A line cut by a crash mid-append: the records before and after it still count.
    }
  }
  return records;
}

/** The readable restore points under `pointsRoot`, of one session or of all. */
async function listRestorePointsIn(
  pointsRoot: string,
  sessionId: string | undefined,
): Promise<RestorePointSummary[]> {
  let ids: string[];
  try {
    ids = sessionId === undefined ? await readdir(pointsRoot) : [sessionId];
  } catch (error) {
    if (hasCode(error, 'ENOENT')) return [];
    throw error;
  }
  const found: RestorePointSummary[] = [];
  for (const id of ids) {
    if (!isValidSessionId(id)) continue;
    let names: string[];
    try {
      names = await readdir(join(pointsRoot, id));
    } catch {
      continue;
    }
    for (const name of names) {
      const match = /^tick-(\d+)\.json$/.exec(name);
      if (match === null) continue;
      const path = join(pointsRoot, id, name);
      try {
        const snapshot = checkedSnapshot(
          parseSnapshot(await readFile(path, 'utf8'), path),
          id,
          path,
        );
        found.push(summarizeRestorePoint(snapshot, Number(match[1])));
      } catch {
        // Unreadable: loadRestorePoint says what is wrong with it.
      }
    }
  }
  return sortRestorePoints(found);
}

/**
 * Skips files it cannot read or parse (and stray temp files) instead of failing: one damaged
 * file should not hide every other session. `load(id)` reports exactly what is wrong with it.
 */
async function listSessionsIn(
  root: string,
  options: Parameters<SessionStore['list']>[0],
): ReturnType<SessionStore['list']> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch (error) {
    if (hasCode(error, 'ENOENT')) return [];
    throw error;
  }
  const summaries: SessionSummary[] = [];
  for (const name of names) {
    // Temp files end in `.tmp`, so this suffix check also skips writes in progress.
    if (!name.endsWith('.json')) continue;
    const id = name.slice(0, -'.json'.length);
    if (!isValidSessionId(id)) continue;
    const path = join(root, name);
    try {
      summaries.push(
        summarize(checkedSnapshot(parseSnapshot(await readFile(path, 'utf8'), path), id, path)),
      );
    } catch {
      // Unreadable or corrupt: see the doc comment above.
    }
  }
  return options === undefined ? sortSummaries(summaries) : pageSummaries(summaries, options);
}

/** The revision stored in `path`: 0 when there is no file, 1 for a file from before revisions. */
async function storedRevision(path: string): Promise<number> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (hasCode(error, 'ENOENT')) return 0;
    throw error;
  }
  try {
    const revision = (JSON.parse(text) as { revision?: unknown }).revision;
    return typeof revision === 'number' && Number.isSafeInteger(revision) && revision >= 0
      ? revision
      : 1;
  } catch {
    // A corrupt file still counts as a stored revision: a conditional save must not replace it
    // unnoticed; an unconditional one may (that is how a damaged session is overwritten).
    return 1;
  }
}

/** A file renamed or copied by hand could hold another session; loading it under this id would mix them up. */
function checkedSnapshot(snapshot: SessionSnapshot, id: string, path: string): SessionSnapshot {
  if (snapshot.id !== id) {
    throw new SnapshotError(
      `Session snapshot ${path} holds session "${snapshot.id}", not "${id}". ` +
        `Rename the file to ${snapshot.id}.json, or save it again under the id you want.`,
      { path },
    );
  }
  return snapshot;
}

async function writeAtomically(target: string, text: string): Promise<void> {
  const temp = `${target}.${process.pid}.${nodeCrypto().randomBytes(6).toString('hex')}.tmp`;
  let handle: FileHandle | undefined;
  try {
    handle = await open(temp, 'wx');
    await handle.writeFile(text, 'utf8');
    // Without fsync the rename can reach the disk before the data, leaving an empty file after a crash.
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temp, target);
  } catch (error) {
    await handle?.close().catch(() => {});
    await unlink(temp).catch(() => {});
    throw error;
  }
}

/** Makes the rename itself durable. Best effort: some platforms cannot open or fsync a directory. */
async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // The rename is still atomic; only its durability across a power cut is weaker.
  } finally {
    await handle?.close().catch(() => {});
  }
}

function hasCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}
