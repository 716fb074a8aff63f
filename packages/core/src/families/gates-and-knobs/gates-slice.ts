import { z } from 'zod';
import { countSchema, type FamilySlice } from '../../state/family-slice.js';

const gateRecord = () =>
  z.looseObject({
    state: z.enum(['inactive', 'active', 'deferred']),
    blocks: countSchema,
    changedBy: z.enum(['model', 'host', 'supervisor', 'runtime']).optional(),
    changedAtTick: countSchema.optional(),
  });

/**
 * The slice's schema, built on its first read (only a restored session's check reads it), not
 * at import: zod builds a schema as it is declared (issue 51 item 4).
 */
let schema: z.ZodType | undefined;

/** The gates family's slice (`state.guards.gates`): knob values and gate records, by name. */
export const gatesSlice: FamilySlice<'gates'> = {
  name: 'gates',
  initialState: () => ({ knobs: {}, gates: {} }),
  get stateSchema() {
    schema ??= z.looseObject({
      knobs: z.record(z.string(), z.unknown()),
      gates: z.record(z.string(), gateRecord()),
    });
    return schema;
  },
};
