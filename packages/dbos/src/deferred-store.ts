import type { SessionSnapshot, SessionStore } from '@agate/core';

/**
 * The store a durable run's session writes to. A save is held until the run's next step
 * writes it: saves then happen inside steps, so a run replayed after a crash (which executes
 * its code again but answers recorded steps from the record) never writes an old state over
 * a newer one. Everything else goes straight to the real store.
 */
export interface DeferredStore extends SessionStore {
  /** Writes the held save, if any. */
  flush(): Promise<void>;
}

export function deferredStore(base: SessionStore): DeferredStore {
  let pending: SessionSnapshot | undefined;
  const store: DeferredStore = {
    async save(snapshot) {
      pending = snapshot;
    },
    async load(id) {
      return pending?.id === id ? pending : base.load(id);
    },
    list: (options) => base.list(options),
    async flush() {
      const held = pending;
      if (held === undefined) return;
      await base.save(held);
      if (pending === held) pending = undefined;
    },
  };
  // Restore points are keyed by tick (writing one again writes the same thing); a tick log is
  // observability, and a replay may append a tick's record again.
  if (base.delete) store.delete = base.delete.bind(base);
  if (base.saveRestorePoint) store.saveRestorePoint = base.saveRestorePoint.bind(base);
  if (base.loadRestorePoint) store.loadRestorePoint = base.loadRestorePoint.bind(base);
  if (base.listRestorePoints) store.listRestorePoints = base.listRestorePoints.bind(base);
  if (base.appendTicks) store.appendTicks = base.appendTicks.bind(base);
  if (base.loadTicks) store.loadTicks = base.loadTicks.bind(base);
  return store;
}
