import { initialApprovalsState } from '../gates/approvals/types.js';
import { initialCheckpointState } from '../gates/checkpoint/types.js';
import { initialContinueState } from '../gates/continue/progress.js';
import { initialTodosState } from '../gates/evidence/types.js';
import { initialPhaseState } from '../gates/phase/session-state.js';
import { initialGatesState } from '../gates/types.js';
import {
  createCoreState,
  type GuardSlices,
  type SeedState,
  type SessionState,
} from '../state/session-state.js';
import { initialRefusalsState } from './define/state.js';

/** Each built-in family's slice of a new session's `state.guards`, one line a family. */
function initialGuardSlices(): GuardSlices {
  return {
    ...initialGatesState(),
    ...initialContinueState(),
    ...initialCheckpointState(),
    ...initialTodosState(),
    ...initialPhaseState(),
    ...initialApprovalsState(),
    ...initialRefusalsState(),
  };
}

/** The names of the built-in families' slices of `state.guards`: a `defineGuard` guard may not take one. */
export const FAMILY_SLICES: ReadonlySet<string> = new Set(Object.keys(initialGuardSlices()));

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
