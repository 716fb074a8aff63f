import { z } from 'zod';
import { toolLedgerEntry } from '../../approvals/ledger-schema.js';
import { countSchema, type FamilySlice } from '../../state/family-slice.js';

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
 * The slice's schema, built on its first read (only a restored session's check reads it), not
 * at import: zod builds a schema as it is declared (issue 51 item 4).
 */
let schema: z.ZodType | undefined;

/**
 * The approvals family's slice (`state.guards.approvals`): calls held for a person's decision
 * and the tool-call ledger. `ledger` may be missing in a state given by hand (it starts empty).
 */
export const approvalsSlice: FamilySlice<'approvals'> = {
  name: 'approvals',
  initialState: () => ({ calls: [], ledger: [] }),
  get stateSchema() {
    schema ??= z.looseObject({
      calls: z.array(toolApproval()),
      ledger: z.array(toolLedgerEntry()).optional(),
    });
    return schema;
  },
};
