import { z } from 'zod';
import { countSchema, type FamilySlice } from '../../state/family-slice.js';

/** `defineGuard` guards' exit refusals in a row, by guard name (`state.guards.refusals`). */
export const refusalsSlice: FamilySlice<'refusals'> = {
  name: 'refusals',
  initialState: () => ({}),
  stateSchema: z.record(z.string(), countSchema),
};
