import {
  createCoreState,
  type GuardSlices,
  type SeedState,
  type SessionState,
} from '../state/session-state.js';
import { BUILT_IN_SLICES } from './built-in-slices.js';

/** Each built-in family's slice of a new session's `state.guards`. */
function initialGuardSlices(): GuardSlices {
  const slices: Record<string, unknown> = {};
  for (const slice of BUILT_IN_SLICES) slices[slice.name] = slice.initialState();
  return slices as GuardSlices;
}

/** The names of the built-in families' slices of `state.guards`: a `defineGuard` guard may not take one. */
export const FAMILY_SLICES: ReadonlySet<string> = new Set(BUILT_IN_SLICES.map((s) => s.name));

/** A new session's state: the runtime's fields and each built-in family's slice. */
export function createInitialState(id: string): SessionState {
  return { ...createCoreState(id), guards: initialGuardSlices() };
}

/**
 * `state` with every field and family slice it lacks at its initial value: a state given by hand
 * (`SessionOptions.state`) or restored from a snapshot written before a family existed.
 */
export function withInitialState(state: SeedState & { id: string }): SessionState {
  const initial = createInitialState(state.id);
  return { ...initial, ...state, guards: { ...initial.guards, ...state.guards } as GuardSlices };
}
