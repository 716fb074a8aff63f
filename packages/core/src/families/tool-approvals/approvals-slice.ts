import { z } from 'zod';
import { toolLedgerEntry } from '../../approvals/ledger-schema.js';
import { countSchema, type FamilySlice } from '../../state/family-slice.js';
import { sliceWithLazySchema } from '../lazy-slice.js';

const toolApproval = () =>
  z.looseObject({
    id: z.string().min(1),
    toolName: z.string().min(1),
    tick: countSchema,
    index: countSchema,
    state: z.enum(['pending', 'approved', 'denied']),
    by: z.string().optional(),
    reason: z.string().optional(),
  });

/**
 * The approvals family's slice (`state.guards.approvals`): calls held for a person's decision
 * and the tool-call ledger. `ledger` may be missing in a state given by hand (it starts empty).
 */
export const approvalsSlice: FamilySlice<'approvals'> = sliceWithLazySchema(
  'approvals',
  () => ({ calls: [], ledger: [] }),
  () =>
    z.looseObject({
      calls: z.array(toolApproval()),
      ledger: z.array(toolLedgerEntry()).optional(),
    }),
);
