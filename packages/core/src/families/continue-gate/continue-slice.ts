import { z } from 'zod';
import { countSchema, type FamilySlice, nonNegativeSchema } from '../../state/family-slice.js';

/**
 * The slice's schema, built on its first read (only a restored session's check reads it), not
 * at import: zod builds a schema as it is declared (issue 51 item 4).
 */
let schema: z.ZodType | undefined;

/**
 * The ContinueGate's slice (`state.guards.continue`): its step bookkeeping, kept on every tick.
 * A missing or negative counter would silently turn its budgets into NaN, so each is required.
 */
export const continueSlice: FamilySlice<'continue'> = {
  name: 'continue',
  initialState: () => ({
    stepNumber: 0,
    lastCheckpointStep: 0,
    reworkCount: 0,
    stepTokens: [],
    callSignatures: [],
    elapsedMs: 0,
  }),
  get stateSchema() {
    schema ??= z.looseObject(
      {
        stepNumber: countSchema,
        lastCheckpointStep: countSchema,
        reworkCount: countSchema,
        stepTokens: z.array(nonNegativeSchema),
        callSignatures: z.array(z.string()),
        elapsedMs: nonNegativeSchema,
      },
      { error: 'must be an object' },
    );
    return schema;
  },
};
