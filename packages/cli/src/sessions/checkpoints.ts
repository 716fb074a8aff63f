import type { SessionState } from '@agate/core';

/**
 * What the session's checkpoints say in one cell: the pending one(s) first (they wait for a
 * person), else the open one. Empty when the session has no checkpoints.
 */
export function checkpointCell(_state: SessionState): string {
  return '';
}

/** `agate show`'s checkpoint and ledger sections (lines, starting with a blank one). */
export function checkpointSection(_state: SessionState): string[] {
  return [];
}
