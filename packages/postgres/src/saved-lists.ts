/** At most this many sessions' lists are held (the most recently saved running ones). */
const MAX_SESSIONS = 1_024;

export interface Saved {
  /** The save id written with them: they are what is stored while the row still has it. */
  saveId: string;
  /** Each stored list as this store wrote it, by name. */
  lists: Map<string, readonly unknown[]>;
}

/**
 * What a store wrote in its last save of each running session: the lists themselves (the
 * session's own frozen arrays, shared, not copied), so the next save finds its new items by
 * identity instead of serializing the whole list. Only lists that cannot change are kept: a
 * frozen array of settled items (deep-frozen JSON `createSnapshot` checked, or primitives).
 */
export class SavedLists {
  private readonly entries = new Map<string, Saved>();

  /** The entry for `id`, removed: a save either leaves a new one or leaves none. */
  take(id: string): Saved | undefined {
    const entry = this.entries.get(id);
    this.entries.delete(id);
    return entry;
  }

  /**
   * Keeps the lists of a committed save. `same`: per list, how many leading items are the very
   * ones of the entry before (already known settled), so only the rest are checked.
   */
  keep(
    id: string,
    saveId: string,
    lists: ReadonlyMap<string, readonly unknown[]>,
    same: ReadonlyMap<string, number>,
    settled: (value: unknown) => boolean,
  ): void {
    const kept = new Map<string, readonly unknown[]>();
    for (const [name, items] of lists) {
      if (!Object.isFrozen(items)) continue;
      let ok = true;
      for (let i = same.get(name) ?? 0; i < items.length && ok; i++) ok = settled(items[i]);
      if (ok) kept.set(name, items);
    }
    if (kept.size === 0) return;
    this.entries.set(id, { saveId, lists: kept });
    if (this.entries.size > MAX_SESSIONS) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  clear(): void {
    this.entries.clear();
  }
}
