import { z } from 'zod';
import { countSchema, type FamilySlice } from '../../state/family-slice.js';
import { sliceWithLazySchema } from '../lazy-slice.js';

const gateRecord = () =>
  z.looseObject({
    state: z.enum(['inactive', 'active', 'deferred']),
    blocks: countSchema,
    changedBy: z.enum(['model', 'host', 'supervisor', 'runtime']).optional(),
    changedAtTick: countSchema.optional(),
  });

/** The gates family's slice (`state.guards.gates`): knob values and gate records, by name. */
export const gatesSlice: FamilySlice<'gates'> = sliceWithLazySchema(
  'gates',
  () => ({ knobs: {}, gates: {} }),
  () =>
    z.looseObject({
      knobs: z.record(z.string(), z.unknown()),
      gates: z.record(z.string(), gateRecord()),
    }),
);
