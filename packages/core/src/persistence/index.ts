export { InvalidSessionIdError, SnapshotError } from './errors.js';
export { createFileStore, DEFAULT_SESSIONS_DIR, RESTORE_POINTS_DIR } from './file-store.js';
export {
  assertValidSessionId,
  createSnapshot,
  isValidSessionId,
  parseSnapshot,
  type SessionSnapshot,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  serializeSnapshot,
} from './snapshot.js';
export {
  createMemoryStore,
  parseRestorePointRef,
  type RestorePointSummary,
  restorePointRef,
  type SessionStore,
  type SessionSummary,
} from './store.js';
