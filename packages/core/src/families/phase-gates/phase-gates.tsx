import type { ReactNode } from 'react';
import { useSessionContext } from '../../runtime/session-context.js';
import { useDeclaration } from '../../runtime/use-declaration.js';
import { checkPhaseGatesProps, type PhaseGatesProps } from './phase-gates-props.js';
import { PHASE_FAMILY, statusOf } from './phase-guard.js';
import { phaseStatus } from './phase-judge.js';
import { createPhaseLedger } from './phase-ledger.js';
import type { PhaseStatus } from './phase-types.js';

/**
 * Phase gates: watch what kind of work the agent has done (looked around, searched, read,
 * changed, verified), warn it with the concrete next action, and in block mode refuse to let
 * it finish until understanding, change and verification hold. Renders nothing itself; its
 * warnings reach the model as ephemeral content.
 */
export function PhaseGates(props: PhaseGatesProps): ReactNode {
  checkPhaseGatesProps(props);
  useDeclaration('<PhaseGates>', {
    kind: 'guard',
    family: PHASE_FAMILY,
    name: `${PHASE_FAMILY}:gates`,
    config: props,
  });
  return null;
}

/** The phases as of the last finished tick (all false before the first). */
export function usePhaseGates(): PhaseStatus {
  const { state } = useSessionContext('usePhaseGates()');
  return state.guards.phase ? statusOf(state.guards.phase) : phaseStatus(createPhaseLedger());
}
