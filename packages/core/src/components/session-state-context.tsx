import { createContext, useContext } from 'react';
import type { SessionState } from '../state/session-state.js';
import { SessionStateError } from '../state/session-state-error.js';

/**
 * The session's state as the components below it read it. The runtime's `SessionProvider`
 * (runtime/session-context.tsx) provides it with the session's handles; it lives here, on the
 * components' floor, so a component such as `<Timeline>` reads the state without importing the
 * runtime. Its value is a new object on every render of the session, even when the state is
 * unchanged: `useTick()` callers rely on re-rendering each tick.
 */
export const SessionStateContext = createContext<{ state: SessionState } | null>(null);

/** The error a session hook throws when no Agate session renders it. */
export function outsideSession(hook: string): SessionStateError {
  return new SessionStateError(
    `${hook} was called outside an Agate session. Render the agent with run(), createSession() ` +
      'or renderContext() from @agate/testing.',
  );
}

/** The state of the session rendering the tree; `hook` names the caller in the error. */
export function useSessionState(hook: string): SessionState {
  const current = useContext(SessionStateContext);
  if (current === null) throw outsideSession(hook);
  return current.state;
}

/** The number of the tick being rendered (1-based, over the session's life). */
export function useTick(): number {
  return useSessionState('useTick()').tick + 1;
}

/** The session's timeline: every message so far, oldest first. */
export function useTimeline(): SessionState['timeline'] {
  return useSessionState('useTimeline()').timeline;
}
