import { checkpointsSlice } from '../families/checkpoints/checkpoints-slice.js';
import { commandGatesSlice } from '../families/command-gate/command-gate-slice.js';
import { continueSlice } from '../families/continue-gate/continue-slice.js';
import { refusalsSlice } from '../families/defined-guards/refusals-slice.js';
import { todosSlice } from '../families/evidence/todos-slice.js';
import { gatesSlice } from '../families/gates-and-knobs/gates-slice.js';
import { phaseSlice } from '../families/phase-gates/phase-slice.js';
import { approvalsSlice } from '../families/tool-approvals/approvals-slice.js';
import type { FamilySlice } from '../state/family-slice.js';

/**
 * Each built-in family's slice of `state.guards`, one line a family: its initial value for a new
 * session and the schema a restored one is checked against. Nothing else names them: the state,
 * the snapshot checks and `defineGuard`'s reserved names are read from this list.
 */
export const BUILT_IN_SLICES: readonly FamilySlice[] = [
  gatesSlice,
  continueSlice,
  checkpointsSlice,
  todosSlice,
  phaseSlice,
  approvalsSlice,
  refusalsSlice,
  commandGatesSlice,
];
