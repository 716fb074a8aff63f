import { produce } from 'immer';
import { withInitialState } from '../guard-seam/initial-state.js';
import { restoreSnapshotState } from '../persistence/restore.js';
import type { SessionStore } from '../persistence/session-store.js';
import { createSnapshot } from '../persistence/snapshot.js';
import { updateSession } from '../persistence/update-session.js';
import type { SessionState } from '../state/session-state.js';
import { UnknownSessionError } from './approval-errors.js';
import { type KeyInput, resolveDecisionKeys } from './approval-signing.js';

/** The keys a decision is signed and checked with (`resolveDecisionKeys`). */
export type DecisionKeys = ReturnType<typeof resolveDecisionKeys>;

/**
 * One person's decision on a stored session (a checkpoint's or a held tool call's), from any
 * process. `apply` makes it on a draft of the session's state (as a restored session would see
 * it) and returns the ledger entry; nothing is written when it throws. A decision racing
 * another saves only over the revision it read: the loser reloads once, finds the item decided
 * and is told by whom. The save notifies the workers waiting on it (`decision: true`).
 */
export async function decideStored<Entry extends { by: string }>(
  store: SessionStore,
  sessionId: string,
  keys: { key?: string; privateKey?: KeyInput } | undefined,
  apply: (draft: SessionState, state: SessionState, signing: DecisionKeys) => Entry,
  label: (entry: Entry) => string,
): Promise<Entry> {
  // The private key (key-pair mode) wins; the shared secret is the version-1 mode.
  const signing = resolveDecisionKeys(keys);
  return updateSession(
    store,
    sessionId,
    (snapshot) => {
      if (snapshot === undefined) throw new UnknownSessionError(sessionId);
      // Snapshots from before a family existed lack its fields: they start empty, as in a session.
      const state = withInitialState(restoreSnapshotState<SessionState>(snapshot));
      let entry: Entry | undefined;
      const next = produce(state, (draft) => {
        entry = apply(draft as SessionState, state, signing);
      });
      if (entry === undefined) throw new Error(`no decision was made on session "${sessionId}"`);
      return { snapshot: createSnapshot(snapshot.id, next, label(entry)), result: entry };
    },
    { decision: true },
  );
}
