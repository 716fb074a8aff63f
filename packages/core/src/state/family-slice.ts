import { z } from 'zod';
import type { GuardStates } from './session-state.js';

/**
 * What a built-in guard family declares about its slice of `state.guards`, as a `defineGuard`
 * guard does: the slice's `initialState` and the `stateSchema` a restored slice is checked
 * against (a hand-edited or damaged snapshot must not mislead the family). The families list
 * theirs in `guard-seam/built-in-slices.ts`; the runtime and the snapshot checks read that list and name no
 * family themselves.
 */
export interface FamilySlice<K extends keyof GuardStates = keyof GuardStates> {
  readonly name: K;
  initialState(): GuardStates[K];
  /** Unknown extra fields are left alone (later versions may add some). */
  readonly stateSchema: z.ZodType;
}

/** A whole number >= 0, with the message the snapshot checks have always given. */
export const countSchema = z
  .number({
    error: (issue) => (issue.input === undefined ? 'is missing' : 'must be a whole number >= 0'),
  })
  .int('must be a whole number >= 0')
  .nonnegative('must be a whole number >= 0');

/** A finite number >= 0. */
export const nonNegativeSchema = z
  .number({ error: (issue) => (issue.input === undefined ? 'is missing' : 'must be a number') })
  .nonnegative('must be >= 0')
  .refine(Number.isFinite, 'must be finite');
