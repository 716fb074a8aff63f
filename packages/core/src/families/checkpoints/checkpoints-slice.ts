import { z } from 'zod';
import { countSchema, type FamilySlice } from '../../state/family-slice.js';

const checkpointRecord = z.looseObject({
  state: z.enum(['unlocked', 'pending', 'approved']),
  ticks: countSchema,
  openedAtTick: countSchema,
  cause: z.enum(['submit', 'budget', 'file', 'finish']).optional(),
  reason: z.string().optional(),
});

/** One ledger entry: checkpoint decisions and, sharing the ledger, tool-call approvals. */
const ledgerEntry = z.looseObject({
  seq: z.number().int().positive(),
  checkpoint: z.string().min(1),
  kind: z.enum([
    'submitted',
    'budget',
    'file',
    'finish',
    'approved',
    'rejected',
    'tool-approval-request',
    'tool-approved',
    'tool-denied',
    'tool-executed',
  ]),
  by: z.string(),
  at: z.string(),
  tick: countSchema,
  summary: z.string().optional(),
  reason: z.string().optional(),
  note: z.string().optional(),
  feedback: z.string().optional(),
  toolName: z.string().optional(),
  inputHash: z.string().optional(),
  nonce: z.string().optional(),
  answers: z.number().int().positive().optional(),
  keyId: z.string().optional(),
  signature: z.string().optional(),
  alg: z.enum(['hmac-sha256', 'ed25519']).optional(),
});

/** The checkpoint family's slice (`state.guards.checkpoints`): records by id and the signed ledger. */
export const checkpointsSlice: FamilySlice<'checkpoints'> = {
  name: 'checkpoints',
  initialState: () => ({ records: {}, ledger: [] }),
  stateSchema: z.looseObject({
    records: z.record(z.string(), checkpointRecord),
    ledger: z.array(ledgerEntry),
  }),
};
