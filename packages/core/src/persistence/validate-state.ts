import { modelMessageSchema } from 'ai';
import { z } from 'zod';
import { BUILT_IN_SLICES } from '../guard-seam/built-in-slices.js';

/**
 * The parts of a session state a hand-edited or damaged snapshot could use to mislead the
 * runtime, checked on load: the timeline against the AI SDK's own model-message schema (and no
 * `system` message smuggled into it: system text comes from the tree, never from history),
 * counters and usage never negative, and each family's slice against the schema the family
 * declares (gate and checkpoint states from their enumerations, the ledger well formed, ...).
 * Fields added by later versions may be missing (they start empty). Unknown extra fields are
 * left alone.
 */
function buildSchemas() {
  const count = z.number().int().nonnegative();
  const nonNegative = z.number().nonnegative().refine(Number.isFinite, 'must be finite');

  const timelineMessage = z.unknown().superRefine((value, ctx) => {
    if (
      typeof value === 'object' &&
      value !== null &&
      (value as { role?: unknown }).role === 'system'
    ) {
      ctx.addIssue({
        code: 'custom',
        message:
          'a "system" message is not allowed in the timeline (system text comes from <System>, never from the history)',
      });
      return;
    }
    const parsed = modelMessageSchema.safeParse(value);
    if (!parsed.success) {
      ctx.addIssue({
        code: 'custom',
        message: 'is not a valid AI SDK model message (user, assistant or tool)',
      });
    }
  });

  /**
   * The built-in families' slices of `state.guards`, each checked against the schema its family
   * declares (`guard-seam/built-in-slices.ts`; a missing slice starts at its initial value). `defineGuard`
   * guards' slices are checked by their own `stateSchema` when they are mounted.
   */
  const guards = z.looseObject(
    Object.fromEntries(BUILT_IN_SLICES.map((slice) => [slice.name, slice.stateSchema.optional()])),
  );

  const stateSchema = z.looseObject({
    tick: count,
    timeline: z.array(timelineMessage),
    usage: z.looseObject({
      inputTokens: nonNegative,
      outputTokens: nonNegative,
      totalTokens: nonNegative,
    }),
    toolCalls: count,
    notices: z.array(z.string()),
    status: z.enum([
      'idle',
      'running',
      'completed',
      'blocked',
      'stopped',
      'paused',
      'awaiting-approval',
      'max-ticks',
      'output-limit',
      'content-filter',
      'aborted',
      'error',
    ]),
    guards,
    // A tick whose calls were interrupted (a running sub-agent): its calls are run from here.
    inflight: z
      .looseObject({
        tick: count,
        response: z.looseObject({
          text: z.string(),
          reasoning: z.string(),
          toolCalls: z.array(z.looseObject({ toolCallId: z.string(), toolName: z.string() })),
          finishReason: z.string(),
          usage: z.looseObject({
            inputTokens: nonNegative,
            outputTokens: nonNegative,
            totalTokens: nonNegative,
          }),
        }),
        results: z.record(
          z.string(),
          z.looseObject({ toolCallId: z.string(), toolName: z.string(), isError: z.boolean() }),
        ),
        progress: z.record(z.string(), z.unknown()),
      })
      .optional(),
  });
  return { guards, stateSchema };
}

/**
 * Built on first use, not at import (issue 51 item 4): only a restored or seeded session is
 * checked, and a plain agent's import need not build a dozen zod schemas it never uses.
 */
let schemas: ReturnType<typeof buildSchemas> | undefined;
const built = () => {
  schemas ??= buildSchemas();
  return schemas;
};

/** Each problem as `state.<path>: <what is wrong>`; empty when the state is well formed. */
export function stateSchemaProblems(state: unknown): string[] {
  const parsed = built().stateSchema.safeParse(state, MISSING);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => problemAt(issue.path, issue.message));
}

/** The problems of the built-in families' slices alone (in `state.guards`), named by path. */
export function guardSliceProblems(guardsValue: unknown): string[] {
  const parsed = built().guards.safeParse(guardsValue, MISSING);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => problemAt(['guards', ...issue.path], issue.message));
}

/** A required field that is absent says so, in any schema (zod's default names the type). */
const MISSING = {
  error: (issue: { code: string; input?: unknown }) =>
    issue.code === 'invalid_type' && issue.input === undefined ? 'is missing' : undefined,
};

/** `state.x.y must be ...` for the checks' own phrases; `state.x.y: <zod's message>` otherwise. */
function problemAt(path: readonly PropertyKey[], message: string): string {
  const at = pathOf(path);
  return /^(is missing$|must be )/.test(message) ? `${at} ${message}` : `${at}: ${message}`;
}

function pathOf(path: readonly PropertyKey[]): string {
  let text = 'state';
  for (const key of path) {
    text += typeof key === 'number' ? `[${key}]` : `.${String(key)}`;
  }
  return text;
}
