import type { GuardHost } from '../../guard-seam/guard-family.js';
import type { SessionStore } from '../../persistence/session-store.js';
import type { SessionSnapshot } from '../../persistence/snapshot.js';
import type { SessionState } from '../../state/session-state.js';

/**
 * The store a child session sees. A child is part of its parent's state, so what it saves goes
 * into the parent: its state becomes the call's progress, and the parent's snapshot (holding it)
 * is what is written, under the parent's id. Nothing is ever stored under the child's id.
 */
export function childStore(host: GuardHost, keep: (state: SessionState) => void): SessionStore {
  const target = () => host.store();
  return {
    async save(snapshot: SessionSnapshot) {
      keep(snapshot.state as SessionState);
      // Only where the parent keeps its sessions: a child must not create a default store.
      if (host.options.store !== undefined) await target().save(host.snapshot(snapshot.label));
    },
    async saveRestorePoint(_id: string, _tick: number, snapshot: SessionSnapshot) {
      keep(snapshot.state as SessionState);
      const store = target();
      if (store.saveRestorePoint === undefined) return;
      const state = host.state();
      await store.saveRestorePoint(host.sessionId, state.tick, host.snapshot(snapshot.label));
    },
    load: (id) => target().load(id),
    list: () => target().list(),
  };
}
