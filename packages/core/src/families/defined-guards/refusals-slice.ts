import { z } from 'zod';
import { countSchema, type FamilySlice } from '../../state/family-slice.js';
import { sliceWithLazySchema } from '../lazy-slice.js';

/** `defineGuard` guards' exit refusals in a row, by guard name (`state.guards.refusals`). */
export const refusalsSlice: FamilySlice<'refusals'> = sliceWithLazySchema(
  'refusals',
  () => ({}),
  () => z.record(z.string(), countSchema),
);
