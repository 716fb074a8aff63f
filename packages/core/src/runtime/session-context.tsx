import type { LanguageModel } from 'ai';
import { createContext, type ReactNode, useContext, useMemo } from 'react';
import type { SessionState } from '../state/session-state.js';
import type { DeclarationRegistry } from './declarations.js';
import type { SessionResources } from './resources.js';
import { SessionStateError } from './runtime-errors.js';

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
// <PhaseGates>) read the handles alone and re-render only when their own props change.
const HandlesContext = createContext<SessionHandles | null>(null);
const StateContext = createContext<{ state: SessionState } | null>(null);

export function SessionProvider(props: { value: SessionContextValue; children?: ReactNode }) {
  const { session, registry, state } = props.value;
  const handles = useMemo(() => ({ session, registry }), [session, registry]);
  return (
    <HandlesContext.Provider value={handles}>
      <StateContext.Provider value={{ state }}>{props.children}</StateContext.Provider>
    </HandlesContext.Provider>
  );
}

function outside(hook: string): SessionStateError {
  return new SessionStateError(
    `${hook} was called outside an Agate session. Render the agent with run(), createSession() ` +
      'or renderContext() from @agate/testing.',
  );
}

/** The session and its registry, without subscribing to the per-tick state. */
export function useSessionHandles(hook: string): SessionHandles {
  const handles = useContext(HandlesContext);
  if (handles === null) throw outside(hook);
  return handles;
}

export function useSessionContext(hook: string): SessionContextValue {
  const handles = useSessionHandles(hook);
  const current = useContext(StateContext);
  if (current === null) throw outside(hook);
  return { ...handles, state: current.state };
}

/** The number of the tick being rendered (1-based, over the session's life). */
export function useTick(): number {
  return useSessionContext('useTick()').state.tick + 1;
}

/** The session's timeline: every message so far, oldest first. */
export function useTimeline(): SessionState['timeline'] {
  return useSessionContext('useTimeline()').state.timeline;
}
