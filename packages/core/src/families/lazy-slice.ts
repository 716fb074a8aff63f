import type { z } from 'zod';
import type { FamilySlice } from '../state/family-slice.js';
import type { GuardStates } from '../state/session-state.js';

/**
 * A built-in family's slice whose `stateSchema` is built on its first read, not when the module
 * loads: zod builds a schema as it is declared, and only a restored session reads these (its
 * slices checked before the run goes on). The eight slices and their ledgers are ~100 schema
 * objects every import of `@agate/core` paid for (issue 51 item 4). The same schema is handed
 * out on every later read.
 */
export function sliceWithLazySchema<K extends keyof GuardStates>(
  name: K,
  initialState: () => GuardStates[K],
  schema: () => z.ZodType,
): FamilySlice<K> {
  let built: z.ZodType | undefined;
  return {
    name,
    initialState,
    get stateSchema() {
      built ??= schema();
      return built;
    },
  };
}
