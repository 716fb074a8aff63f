import { z } from 'zod';
import { countSchema } from '../state/family-slice.js';
import { CHECKPOINT_LEDGER_KINDS, TOOL_APPROVAL_KINDS } from './ledger-types.js';

/**
 * The fields both ledgers' entries share, as a restored snapshot is checked for them. The
 * schemas here are functions: only a restored slice's check builds them, once per slice (the
 * checkpoints' and approvals' slices memoize their schema on first read).
 */
const entryFields = () => ({
  seq: z.number().int().positive(),
  checkpoint: z.string().min(1),
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

/**
 * A checkpoint ledger entry (`state.guards.checkpoints.ledger`). Its kinds are the checkpoint's
 * only: a tool-call entry copied in is refused with the file, not read as a checkpoint's.
 */
export const checkpointLedgerEntry = () =>
  z.looseObject({
    ...entryFields(),
    kind: z.enum(CHECKPOINT_LEDGER_KINDS as [string, ...string[]]),
  });

/**
 * A tool-call ledger entry (`state.guards.approvals.ledger`); a checkpoint entry copied in is
 * refused. `signedAs`: set by the version-3 migration on entries moved out of the checkpoint
 * ledger (see approval-signing.ts).
 */
export const toolLedgerEntry = () =>
  z.looseObject({
    ...entryFields(),
    kind: z.enum(TOOL_APPROVAL_KINDS as [string, ...string[]]),
    signedAs: z
      .strictObject({
        ledger: z.literal('checkpoints'),
        seq: z.number().int().positive(),
        answers: z.number().int().positive().optional(),
      })
      .optional(),
  });
