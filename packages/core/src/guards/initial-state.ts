import { initialApprovalsState } from '../gates/approvals/types.js';
import { initialCheckpointState } from '../gates/checkpoint/types.js';
import { initialTodosState } from '../gates/evidence/types.js';
import { initialPhaseState } from '../gates/phase/session-state.js';
import { createCoreState, type SessionState } from '../state/session-state.js';

/**
 * A new session's state: the runtime's fields and each built-in family's, one line a family
 * (a family with state fields declares them in `GuardStates` and adds its initial values here).
 */
export function createInitialState(id: string): SessionState {
  return {
    ...createCoreState(id),
    ...initialCheckpointState(),
    ...initialTodosState(),
    ...initialPhaseState(),
    ...initialApprovalsState(),
  };
}
