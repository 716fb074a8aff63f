import { modelMessageSchema } from 'ai';
import { z } from 'zod';
import { TODO_STATUSES } from '../gates/evidence/types.js';

/**
 * The parts of a session state a hand-edited or damaged snapshot could use to mislead the
 * runtime, checked on load: the timeline against the AI SDK's own model-message schema (and no
 * `system` message smuggled into it: system text comes from the tree, never from history),
 * counters and usage never negative, gate and checkpoint states from their enumerations, the
 * ledger well formed. Fields added by later versions may be missing (they start empty).
 * Unknown extra fields are left alone.
 */
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

const gateRecord = z.looseObject({
  state: z.enum(['inactive', 'active', 'deferred']),
  blocks: count,
  changedBy: z.enum(['model', 'host', 'supervisor', 'runtime']).optional(),
  changedAtTick: count.optional(),
});

const checkpointRecord = z.looseObject({
  state: z.enum(['unlocked', 'pending', 'approved']),
  ticks: count,
  openedAtTick: count,
  cause: z.enum(['submit', 'budget', 'file', 'finish']).optional(),
  reason: z.string().optional(),
});

const toolApproval = z.looseObject({
  id: z.string().min(1),
  toolName: z.string().min(1),
  tick: count,
  index: count,
  state: z.enum(['pending', 'approved', 'denied']),
  by: z.string().optional(),
  reason: z.string().optional(),
});

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
  ]),
  by: z.string(),
  at: z.string(),
  tick: count,
  summary: z.string().optional(),
  reason: z.string().optional(),
  note: z.string().optional(),
  feedback: z.string().optional(),
  answers: z.number().int().positive().optional(),
  keyId: z.string().optional(),
  signature: z.string().optional(),
  alg: z.enum(['hmac-sha256', 'ed25519']).optional(),
});

const todoItem = z.looseObject({
  content: z.string(),
  status: z.enum(TODO_STATUSES),
});

const progress = z.looseObject({
  stepNumber: count,
  lastCheckpointStep: count,
  reworkCount: count,
  stepTokens: z.array(nonNegative),
  callSignatures: z.array(z.string()),
  elapsedMs: nonNegative,
});

/**
 * The built-in families' slices of `state.guards` (a missing slice starts at its initial value);
 * `defineGuard` guards' slices are checked by their own `stateSchema` when they are mounted.
 */
const guards = z.looseObject({
  gates: z
    .looseObject({
      knobs: z.record(z.string(), z.unknown()),
      gates: z.record(z.string(), gateRecord),
    })
    .optional(),
  continue: progress.optional(),
  todos: z.looseObject({ items: z.array(todoItem), blocks: count }).optional(),
  checkpoints: z
    .looseObject({
      records: z.record(z.string(), checkpointRecord),
      ledger: z.array(ledgerEntry),
    })
    .optional(),
  approvals: z.looseObject({ calls: z.array(toolApproval) }).optional(),
  refusals: z.record(z.string(), count).optional(),
});

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

/** Each problem as `state.<path>: <what is wrong>`; empty when the state is well formed. */
export function stateSchemaProblems(state: unknown): string[] {
  const parsed = stateSchema.safeParse(state);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => `${pathOf(issue.path)}: ${issue.message}`);
}

function pathOf(path: readonly PropertyKey[]): string {
  let text = 'state';
  for (const key of path) {
    text += typeof key === 'number' ? `[${key}]` : `.${String(key)}`;
  }
  return text;
}
