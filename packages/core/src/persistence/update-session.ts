import { StaleSessionError } from './persistence-errors.js';
import type { SessionStore } from './session-store.js';
import type { SessionSnapshot } from './snapshot.js';

/** What an `updateSession` recipe returns: the snapshot to save, and what the caller gets. */
export interface SessionUpdate<T> {
  snapshot: SessionSnapshot;
  result: T;
}

export interface UpdateSessionOptions {
  /** How many times to load and redo the change after a stale save. Default 1. */
  retries?: number;
  /** The change records a person's decision: passed to the save (`SaveOptions.decision`). */
  decision?: boolean;
}

/**
 * The one read-modify-write of a stored session: loads it, lets `recipe` build the changed
 * snapshot, and saves it only if nobody saved in between (`expectedRevision`). When someone
 * did (`StaleSessionError`), it loads again and runs `recipe` again on what is stored now,
 * up to `retries` times; the recipe then sees the other writer's change (a checkpoint already
 * decided, say) and can throw a typed error saying so. `recipe` gets `undefined` when no
 * session has that id, and should throw then.
 *
 * On a store without revisions (`load` sets none) the save is unconditional: last write wins.
 */
export async function updateSession<T>(
  store: SessionStore,
  sessionId: string,
  recipe: (
    current: SessionSnapshot | undefined,
    attempt: number,
  ) => Promise<SessionUpdate<T>> | SessionUpdate<T>,
  options: UpdateSessionOptions = {},
): Promise<T> {
  const retries = options.retries ?? 1;
  for (let attempt = 0; ; attempt++) {
    const current = await store.load(sessionId);
    const { snapshot, result } = await recipe(current, attempt);
    const expectedRevision = current === undefined ? 0 : current.revision;
    try {
      await store.save(snapshot, {
        ...(expectedRevision === undefined ? {} : { expectedRevision }),
        ...(options.decision === true ? { decision: true } : {}),
      });
      return result;
    } catch (error) {
      if (!StaleSessionError.isInstance(error) || attempt >= retries) throw error;
    }
  }
}
