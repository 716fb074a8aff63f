import { z } from 'zod';
import { checkpointLedgerEntry } from '../../approvals/ledger-schema.js';
import { countSchema, type FamilySlice } from '../../state/family-slice.js';

const checkpointRecord = () =>
  z.looseObject({
    state: z.enum(['unlocked', 'pending', 'approved']),
    ticks: countSchema,
    openedAtTick: countSchema,
    cause: z.enum(['submit', 'budget', 'file', 'finish']).optional(),
    reason: z.string().optional(),
  });

/**
 * The slice's schema, built on its first read (only a restored session's check reads it), not
 * at import: zod builds a schema as it is declared (issue 51 item 4).
 */
let schema: z.ZodType | undefined;

/** The checkpoint family's slice (`state.guards.checkpoints`): records by id and the signed ledger. */
export const checkpointsSlice: FamilySlice<'checkpoints'> = {
  name: 'checkpoints',
  initialState: () => ({ records: {}, ledger: [] }),
  get stateSchema() {
    schema ??= z.looseObject({
      records: z.record(z.string(), checkpointRecord()),
      ledger: z.array(checkpointLedgerEntry()),
    });
    return schema;
  },
};
