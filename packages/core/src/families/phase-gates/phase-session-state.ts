import type { PhaseLedger } from './phase-ledger.js';
import type { PhaseStatus } from './phase-types.js';

/** The phases (as `usePhaseGates()` gives them), and what they were judged from. */
export interface PhaseSessionState extends PhaseStatus {
  ledger: PhaseLedger;
  /** Warnings shown (ephemeral) in the next request. */
  pending: string[];
}
