import type { ZodType } from 'zod';
import type { GuardDefinition } from './guard-definition.js';

/** Registry family of guards made with `defineGuard`; their registry names are `guard:<name>`. */
export const DEFINED_FAMILY = 'defined';

export const registryName = (guard: string) => `guard:${guard}`;

/** A definition as the runtime holds it: hooks untyped (props and state are checked at the edges). */
export type AnyGuardDefinition = GuardDefinition<unknown, unknown> & {
  stateSchema?: ZodType;
  propsSchema?: ZodType;
};

/** One mounted guard: its definition and this render's props. */
export interface GuardMount {
  definition: AnyGuardDefinition;
  props: unknown;
  maxRefusals: number;
}
