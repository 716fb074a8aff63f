import type { LanguageModel } from 'ai';
import { createContext, type ReactNode, useContext, useMemo } from 'react';
import {
  outsideSession,
  SessionStateContext,
  useSessionState,
} from '../components/session-state-context.js';
import type { SessionState } from '../state/session-state.js';
import type { DeclarationRegistry } from './declarations.js';
import type { SessionResources } from './resources.js';

/**
 * The session rendering the tree, as components below the provider see it. The full `Session`
 * is what `useSession()` (runtime/use-session.ts) returns; naming it here would make the session
 * and the provider it renders import each other.
 */
export interface RenderingSession {
  readonly id: string;
  readonly model: LanguageModel;
  /** Where components keep what they open for a run (`<McpServer>`'s connection). */
  readonly resources: SessionResources;
}

export interface SessionContextValue {
  session: RenderingSession;
  state: SessionState;
  registry: DeclarationRegistry;
}

/** What never changes during a session's life: read by components that only declare things. */
export interface SessionHandles {
  session: RenderingSession;
  registry: DeclarationRegistry;
}

// Two contexts. Readers of the state re-render on every render of the session (its value is a
// new object each time, even when the state is unchanged: `useTick()` callers rely on it);
// components that only register a declaration (<ContinueGate>, <Checkpoint>, <Todos>,
// <PhaseGates>) read the handles alone and re-render only when their own props change. The
// state's context is on the components' floor (components/session-state-context.tsx), so
// `<Timeline>` reads it without importing the runtime.
const HandlesContext = createContext<SessionHandles | null>(null);

export function SessionProvider(props: { value: SessionContextValue; children?: ReactNode }) {
  const { session, registry, state } = props.value;
  const handles = useMemo(() => ({ session, registry }), [session, registry]);
  return (
    <HandlesContext.Provider value={handles}>
      <SessionStateContext.Provider value={{ state }}>
        {props.children}
      </SessionStateContext.Provider>
    </HandlesContext.Provider>
  );
}

/** The session and its registry, without subscribing to the per-tick state. */
export function useSessionHandles(hook: string): SessionHandles {
  const handles = useContext(HandlesContext);
  if (handles === null) throw outsideSession(hook);
  return handles;
}

export function useSessionContext(hook: string): SessionContextValue {
  const handles = useSessionHandles(hook);
  return { ...handles, state: useSessionState(hook) };
}
