import { noteContinuation } from '../../state/continuations.js';

/** Bookkeeping the ContinueGate reads; kept in state so budgets survive a resume. */
export interface ProgressState {
  /** Steps since the run started or was last resumed by a person. */
  stepNumber: number;
  lastCheckpointStep: number;
  reworkCount: number;
  /** Tokens used by each recent tick, oldest first (capped). */
  stepTokens: number[];
  /** Canonical signatures of recent tool calls, for the default rework detector (capped). */
  callSignatures: string[];
  /** Wall time spent inside ticks, summed over every run of this session. */
  elapsedMs: number;
}

export const STEP_TOKENS_CAP = 50;
export const CALL_SIGNATURES_CAP = 2_000;

/**
 * The ContinueGate's bookkeeping for a finished tick (kept whether or not one is mounted): the
 * next progress record, frozen, built without a draft because it runs every tick.
 */
export function nextProgress(
  base: Readonly<ProgressState>,
  tokens: number,
  options: {
    elapsedMs: number;
    rework: boolean;
    /** `callSignature` of each of the tick's calls, in order (computed once per tick). */
    signatures: readonly string[];
  },
): ProgressState {
  // Spreads, not `concat`: both lists are frozen, and V8's `concat` on a frozen array leaves its
  // fast path (see commitTick); the signatures grow to 2,000 in a long run.
  const stepTokens = [...base.stepTokens, tokens];
  const signatures =
    options.signatures.length === 0
      ? base.callSignatures
      : [...base.callSignatures, ...options.signatures];
  const callSignatures =
    signatures.length > CALL_SIGNATURES_CAP ? signatures.slice(-CALL_SIGNATURES_CAP) : signatures;
  if (callSignatures !== base.callSignatures) {
    noteContinuation(
      callSignatures,
      base.callSignatures,
      signatures.length - callSignatures.length,
    );
  }
  return Object.freeze({
    ...base,
    stepNumber: base.stepNumber + 1,
    elapsedMs: base.elapsedMs + options.elapsedMs,
    reworkCount: base.reworkCount + (options.rework ? 1 : 0),
    stepTokens: Object.freeze(
      stepTokens.length > STEP_TOKENS_CAP ? stepTokens.slice(-STEP_TOKENS_CAP) : stepTokens,
    ) as number[],
    callSignatures: Object.freeze(callSignatures) as string[],
  });
}
