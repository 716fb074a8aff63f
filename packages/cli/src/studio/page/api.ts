import type { ChatInfo, SessionView, StudioSession, TickSummary, TickView } from '../api-types.js';

/**
 * Every call carries the launch's token in the studio's `HttpOnly` cookie (the browser sends
 * it; no script of the page can read it).
 */
async function call<T>(path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(path, { ...init, credentials: 'same-origin' });
  const body = (await response.json()) as T & { error?: string };
  if (!response.ok) throw new Error(body.error ?? response.statusText);
  return body;
}

const session = (id: string) => `/api/sessions/${encodeURIComponent(id)}`;

export const api = {
  /** The chat of `agate studio --agent`; null when the studio has none. */
  chatInfo: async (): Promise<ChatInfo | null> => {
    const response = await fetch('/api/chat', { credentials: 'same-origin' });
    if (response.status === 404) return null;
    const body = (await response.json()) as ChatInfo & { error?: string };
    if (!response.ok) throw new Error(body.error ?? response.statusText);
    return body;
  },
  /** A message for the agent (or, without `text`, going on): answered once the run started. */
  chat: (body: { sessionId?: string; text?: string }) =>
    call<{ sessionId: string }>('/api/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  sessions: () => call<StudioSession[]>('/api/sessions'),
  session: (id: string) => call<SessionView>(session(id)),
  ticks: (id: string) => call<TickSummary[]>(`${session(id)}/ticks`),
  tick: (id: string, tick: number) => call<TickView>(`${session(id)}/ticks/${tick}`),
  /** `what`: `checkpoints/<id>/approve`, `tool-calls/<id>/deny`, … */
  decide: (id: string, what: string, body: Record<string, string>) =>
    call<{ seq: number; signed: boolean }>(`${session(id)}/${what}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
};

/** Calls `changed` with the session's id whenever the server says it changed. */
export function watchChanges(onOpen: () => void, changed: (sessionId: string) => void): () => void {
  const events = new EventSource('/api/events');
  events.addEventListener('open', onOpen);
  events.addEventListener('changed', (message) => {
    const { sessionId } = JSON.parse((message as MessageEvent<string>).data) as {
      sessionId: string;
    };
    changed(sessionId);
  });
  return () => events.close();
}
