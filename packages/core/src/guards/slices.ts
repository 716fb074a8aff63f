import { approvalsSlice } from '../gates/approvals/slice.js';
import { checkpointsSlice } from '../gates/checkpoint/slice.js';
import { continueSlice } from '../gates/continue/slice.js';
import { todosSlice } from '../gates/evidence/slice.js';
import { phaseSlice } from '../gates/phase/slice.js';
import { gatesSlice } from '../gates/slice.js';
import type { FamilySlice } from '../state/slice.js';
import { refusalsSlice } from './define/slice.js';

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
];
