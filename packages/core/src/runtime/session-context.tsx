import { createContext, type ReactNode, useContext } from 'react';
import type { SessionState } from '../state/session-state.js';
import type { DeclarationRegistry } from './declarations.js';
import { SessionStateError } from './errors.js';
import type { Session } from './session.js';

export interface SessionContextValue {
  session: Session;
  state: SessionState;
  registry: DeclarationRegistry;
}

const SessionContext = createContext<SessionContextValue | null>(null);

export function SessionProvider(props: { value: SessionContextValue; children?: ReactNode }) {
  return <SessionContext.Provider value={props.value}>{props.children}</SessionContext.Provider>;
}

export function useSessionContext(hook: string): SessionContextValue {
  const value = useContext(SessionContext);
  if (value === null) {
    throw new SessionStateError(
      `${hook} was called outside an Agate session. Render the agent with run(), createSession() ` +
        'or renderContext() from @agate/testing.',
    );
  }
  return value;
}

/** The session rendering this tree (for host actions: setKnob, clearGate, snapshot...). */
export function useSession(): Session {
  return useSessionContext('useSession()').session;
}

/** The number of the tick being rendered (1-based, over the session's life). */
export function useTick(): number {
  return useSessionContext('useTick()').state.tick + 1;
}

/** The session's timeline: every message so far, oldest first. */
export function useTimeline(): SessionState['timeline'] {
  return useSessionContext('useTimeline()').state.timeline;
}
