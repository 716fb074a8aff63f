// @agate/core/stores: writing a session store of your own (docs/persistence.md#stores) and
// reading what stores keep: the snapshot format, restore points, revisions, tick logs.

export {
  assertRestorePoint,
  type CreateSnapshotOptions,
  createSnapshot,
  DEFAULT_SESSIONS_DIR,
  isSettledJson,
  type ListOptions,
  migrateState,
  parseRestorePointRef,
  parseSnapshot,
  RESTORE_POINTS_DIR,
  type RestorePointSummary,
  restorePointRef,
  type SaveOptions,
  type SessionSummary,
  type SessionUpdate,
  type SettledOrigin,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  serializeSnapshot,
  settledOrigin,
  type UpdateSessionOptions,
  updateSession,
} from '../persistence/index.js';
export { restoreSnapshotState } from '../persistence/restore.js';
export { assertValidSessionId, isValidSessionId } from '../persistence/snapshot.js';
export { noteContinuation } from '../state/continuations.js';
// Tick logs: one bounded record per tick (agate studio)
export {
  type MaterializedTick,
  materializeTicks,
  type TickLogOptions,
  type TickRecord,
  type TickRecordCall,
  type TickRequestDelta,
} from '../tick-log/index.js';
