import { z } from 'zod';
import type { FamilySlice } from '../../state/family-slice.js';
import { sliceWithLazySchema } from '../lazy-slice.js';

/**
 * The phase family's slice (`state.guards.phase`): `null` until `<PhaseGates>` first judges a
 * tick. Its phases are judged again from the ledger each tick, so nothing in it decides alone.
 */
export const phaseSlice: FamilySlice<'phase'> = sliceWithLazySchema(
  'phase',
  () => null,
  () => z.looseObject({}).nullable(),
);
