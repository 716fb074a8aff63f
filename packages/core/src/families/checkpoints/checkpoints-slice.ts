import { z } from 'zod';
import { checkpointLedgerEntry } from '../../approvals/ledger-schema.js';
import { countSchema, type FamilySlice } from '../../state/family-slice.js';
import { sliceWithLazySchema } from '../lazy-slice.js';

const checkpointRecord = () =>
  z.looseObject({
    state: z.enum(['unlocked', 'pending', 'approved']),
    ticks: countSchema,
    openedAtTick: countSchema,
    cause: z.enum(['submit', 'budget', 'file', 'finish']).optional(),
    reason: z.string().optional(),
  });

/** The checkpoint family's slice (`state.guards.checkpoints`): records by id and the signed ledger. */
export const checkpointsSlice: FamilySlice<'checkpoints'> = sliceWithLazySchema(
  'checkpoints',
  () => ({ records: {}, ledger: [] }),
  () =>
    z.looseObject({
      records: z.record(z.string(), checkpointRecord()),
      ledger: z.array(checkpointLedgerEntry()),
    }),
);
