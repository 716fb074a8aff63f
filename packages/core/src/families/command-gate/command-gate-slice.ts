import { z } from 'zod';
import { countSchema, type FamilySlice } from '../../state/family-slice.js';
import type { CommandGatesState } from './command-gate-types.js';

const lastRun = () =>
  z.looseObject({
    tick: countSchema,
    passed: z.boolean(),
    exitCode: z.number().int().nullable(),
    timedOut: z.boolean(),
    digest: z.string(),
    summary: z.string().optional(),
    notRun: z.string().optional(),
    tail: z.string(),
  });

const hostCheck = () =>
  z.looseObject({
    tick: countSchema,
    gate: z.string(),
    command: z.string(),
    exitCode: z.number().int().nullable(),
    timedOut: z.boolean(),
    ran: z.boolean(),
    passed: z.boolean(),
    output: z.string(),
  });

/**
 * The slice's schema, built on its first read (only a restored session's check reads it), not
 * at import: zod builds a schema as it is declared (issue 51 item 4).
 */
let schema: z.ZodType | undefined;

/** `<CommandGate>`s' slice (`state.guards.commandGates`): each gate's record, and the host's checks. */
export const commandGatesSlice: FamilySlice<'commandGates'> = {
  name: 'commandGates',
  initialState: (): CommandGatesState => ({ gates: {}, checks: [] }),
  get stateSchema() {
    schema ??= z.looseObject({
      gates: z.record(
        z.string(),
        z.looseObject({
          blocks: countSchema,
          runs: countSchema,
          passedDigest: z.string().optional(),
          lastRun: lastRun().optional(),
        }),
      ),
      checks: z.array(hostCheck()),
    });
    return schema;
  },
};
