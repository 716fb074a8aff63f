import { z } from 'zod';
import { countSchema, type FamilySlice } from '../../state/family-slice.js';

const toolApproval = z.looseObject({
  id: z.string().min(1),
  toolName: z.string().min(1),
  tick: countSchema,
  index: countSchema,
  state: z.enum(['pending', 'approved', 'denied']),
  by: z.string().optional(),
  reason: z.string().optional(),
});

/** The approvals family's slice (`state.guards.approvals`): calls held for a person's decision. */
export const approvalsSlice: FamilySlice<'approvals'> = {
  name: 'approvals',
  initialState: () => ({ calls: [] }),
  stateSchema: z.looseObject({ calls: z.array(toolApproval) }),
};
