import {
  assertValidSessionId,
  parseSnapshot,
  type SessionSnapshot,
  serializeSnapshot,
} from './snapshot.js';

export interface SessionSummary {
  id: string;
  savedAt: string;
  label?: string;
}

/** Where sessions are kept between runs. One snapshot per id; saving again replaces it. */
export interface SessionStore {
  save(snapshot: SessionSnapshot): Promise<void>;
  /** `undefined` when no session has that id. */
  load(id: string): Promise<SessionSnapshot | undefined>;
  /** Oldest save first. */
  list(): Promise<SessionSummary[]>;
}

/**
 * A store for tests and short-lived processes. It keeps JSON text rather than objects so it
 * behaves like the file store: what was saved cannot be changed through a reference, and
 * unserializable state fails at save time, not later in another process.
 */
export function createMemoryStore(): SessionStore {
  const texts = new Map<string, string>();
  return {
    async save(snapshot) {
      texts.set(snapshot.id, serializeSnapshot(snapshot));
    },
    async load(id) {
      assertValidSessionId(id);
      const text = texts.get(id);
      return text === undefined ? undefined : parseSnapshot(text, `memory:${id}`);
    },
    async list() {
      return sortSummaries(
        [...texts].map(([id, text]) => summarize(parseSnapshot(text, `memory:${id}`))),
      );
    },
  };
}

export function summarize(snapshot: SessionSnapshot): SessionSummary {
  return {
    id: snapshot.id,
    savedAt: snapshot.savedAt,
    ...(snapshot.label === undefined ? {} : { label: snapshot.label }),
  };
}

/** By save time, then id, so the order is stable when two saves share a timestamp. */
export function sortSummaries(summaries: SessionSummary[]): SessionSummary[] {
  return summaries.sort(
    (a, b) =>
      Date.parse(a.savedAt) - Date.parse(b.savedAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}
