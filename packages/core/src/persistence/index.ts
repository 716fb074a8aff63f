export { createFileStore, DEFAULT_SESSIONS_DIR, RESTORE_POINTS_DIR } from './file-store.js';
export { migrateState } from './migrate.js';
export {
  InvalidSessionIdError,
  SessionLockError,
  SnapshotError,
  StaleSessionError,
} from './persistence-errors.js';
export {
  assertRestorePoint,
  createMemoryStore,
  type ListOptions,
  parseRestorePointRef,
  type RestorePointSummary,
  restorePointRef,
  type SaveOptions,
  type SessionStore,
  type SessionSummary,
} from './session-store.js';
export {
  assertValidSessionId,
  type CreateSnapshotOptions,
  createSnapshot,
  isSettledJson,
  isValidSessionId,
  parseSnapshot,
  type SessionSnapshot,
  type SettledOrigin,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  serializeSnapshot,
  settledOrigin,
} from './snapshot.js';
export {
  type SessionUpdate,
  type UpdateSessionOptions,
  updateSession,
} from './update-session.js';
