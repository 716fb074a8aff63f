import { z } from 'zod';
import { countSchema, type FamilySlice } from '../../state/family-slice.js';
import { sliceWithLazySchema } from '../lazy-slice.js';
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

/** `<CommandGate>`s' slice (`state.guards.commandGates`): each gate's record, and the host's checks. */
export const commandGatesSlice: FamilySlice<'commandGates'> = sliceWithLazySchema(
  'commandGates',
  (): CommandGatesState => ({ gates: {}, checks: [] }),
  () =>
    z.looseObject({
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
    }),
);
