import { z } from 'zod';
import { countSchema, type FamilySlice } from '../../state/family-slice.js';

/**
 * The slice's schema, built on its first read (only a restored session's check reads it), not
 * at import: zod builds a schema as it is declared (issue 51 item 4).
 */
let schema: z.ZodType | undefined;

/** `defineGuard` guards' exit refusals in a row, by guard name (`state.guards.refusals`). */
export const refusalsSlice: FamilySlice<'refusals'> = {
  name: 'refusals',
  initialState: () => ({}),
  get stateSchema() {
    schema ??= z.record(z.string(), countSchema);
    return schema;
  },
};
