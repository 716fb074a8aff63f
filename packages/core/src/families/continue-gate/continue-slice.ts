import { z } from 'zod';
import { countSchema, type FamilySlice, nonNegativeSchema } from '../../state/family-slice.js';
import { sliceWithLazySchema } from '../lazy-slice.js';

/**
 * The ContinueGate's slice (`state.guards.continue`): its step bookkeeping, kept on every tick.
 * A missing or negative counter would silently turn its budgets into NaN, so each is required.
 */
export const continueSlice: FamilySlice<'continue'> = sliceWithLazySchema(
  'continue',
  () => ({
    stepNumber: 0,
    lastCheckpointStep: 0,
    reworkCount: 0,
    stepTokens: [],
    callSignatures: [],
    elapsedMs: 0,
  }),
  () =>
    z.looseObject(
      {
        stepNumber: countSchema,
        lastCheckpointStep: countSchema,
        reworkCount: countSchema,
        stepTokens: z.array(nonNegativeSchema),
        callSignatures: z.array(z.string()),
        elapsedMs: nonNegativeSchema,
      },
      { error: 'must be an object' },
    ),
);
