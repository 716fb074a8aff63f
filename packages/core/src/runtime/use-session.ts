import type { Session } from './session.js';
import { useSessionContext } from './session-context.js';

/** The session rendering this tree (for host actions: setKnob, clearGate, snapshot...). */
export function useSession(): Session {
  // The provider is only ever given a Session (runtime/session.ts renders it).
  return useSessionContext('useSession()').session as Session;
}
