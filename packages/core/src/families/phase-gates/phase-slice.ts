import { z } from 'zod';
import type { FamilySlice } from '../../state/family-slice.js';

/**
 * The slice's schema, built on its first read (only a restored session's check reads it), not
 * at import: zod builds a schema as it is declared (issue 51 item 4).
 */
let schema: z.ZodType | undefined;

/**
 * The phase family's slice (`state.guards.phase`): `null` until `<PhaseGates>` first judges a
 * tick. Its phases are judged again from the ledger each tick, so nothing in it decides alone.
 */
export const phaseSlice: FamilySlice<'phase'> = {
  name: 'phase',
  initialState: () => null,
  get stateSchema() {
    schema ??= z.looseObject({}).nullable();
    return schema;
  },
};
