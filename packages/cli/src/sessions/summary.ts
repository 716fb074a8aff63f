import { shortTime } from '../format/table.js';
import { checkpointCell } from './checkpoints.js';
import type { StoredSession } from './stored-session.js';

/** One row of `agate sessions`. */
export interface SessionRow {
  id: string;
  /** `session`, or `restore point of <id>` for a ContinueGate checkpoint. */
  kind: 'session' | 'restore-point';
  /** The session a restore point belongs to (its own id for a session). */
  sessionId: string;
  status: string;
  checkpoint: string;
  ticks: number;
  savedAt: string;
  label?: string;
}

export function sessionRow(stored: StoredSession): SessionRow {
  const { snapshot, state } = stored;
  return {
    id: stored.ref ?? snapshot.id,
    kind: stored.restorePointOf === undefined ? 'session' : 'restore-point',
    sessionId: state.id,
    status: state.status,
    checkpoint: checkpointCell(state),
    ticks: state.tick,
    savedAt: snapshot.savedAt,
    ...(snapshot.label !== undefined ? { label: snapshot.label } : {}),
  };
}

export const SESSION_TABLE_HEADERS = ['id', 'status', 'checkpoint', 'ticks', 'saved at'] as const;

export function sessionCells(row: SessionRow): string[] {
  return [
    row.kind === 'restore-point' ? `${row.id} (restore point)` : row.id,
    row.status,
    row.checkpoint === '' ? '-' : row.checkpoint,
    String(row.ticks),
    shortTime(row.savedAt),
  ];
}
