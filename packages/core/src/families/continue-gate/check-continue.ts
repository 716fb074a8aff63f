import { AgateError } from '../../ground/agate-error.js';
import { errorMessage } from '../../ground/thrown.js';
import type { AgateEvent } from '../../runtime/events.js';
import type { RunStatus, SessionState } from '../../state/session-state.js';
import type { TickResult } from '../../state/tick-result.js';
import type { ContinueEvaluation, StepContext } from './continue-gate-config.js';
import type { ContinueGateEvaluator } from './continue-gate-evaluator.js';
import type { ContinueGateProps } from './continue-gate-props.js';
import { buildStepContext } from './step-context.js';

export interface ContinueCheckInput {
  props: ContinueGateProps;
  evaluator: ContinueGateEvaluator;
  state: SessionState;
  recentTicks: readonly TickResult[];
  tick: number;
  signal: AbortSignal;
  emit: (event: AgateEvent) => void;
  /** Saves a restore point; resolves to the snapshot id. */
  saveCheckpoint: (step: number) => Promise<string>;
}

export type ContinueCheckOutcome =
  | { kind: 'proceed' }
  | { kind: 'end'; status: RunStatus; reason: string };

/**
 * Applies one ContinueGate evaluation before a model call: stop and pause end the run,
 * throttle waits `cooldownMs` (abortable), checkpoint saves a snapshot and goes on.
 */
export function checkContinue(
  input: ContinueCheckInput,
): ContinueCheckOutcome | Promise<ContinueCheckOutcome> {
  const { props, evaluator, state, tick, emit } = input;
  // The signals reach only the score functions: built (a copy of the recent ticks, which the
  // session keeps appending to and user functions must not change) only for one of them.
  const signals =
    props.coherence !== undefined || props.uncertainty !== undefined
      ? { state, recentTicks: Object.freeze([...input.recentTicks]) }
      : { state, recentTicks: NO_TICKS };
  const step = buildStepContext(state, props, signals);
  const evaluation = evaluator.evaluate(step);
  emit({ type: 'continue:evaluated', tick, evaluation, step });
  // The usual answer, synchronously: an awaited hook costs every tick a promise.
  if (evaluation.decision === 'continue') {
    callOnDecision(props, evaluation, step);
    return PROCEED;
  }
  return decide(input, evaluation, step);
}

const PROCEED: ContinueCheckOutcome = { kind: 'proceed' };
const NO_TICKS: readonly TickResult[] = Object.freeze([]);

async function decide(
  input: ContinueCheckInput,
  evaluation: ContinueEvaluation,
  step: StepContext,
): Promise<ContinueCheckOutcome> {
  const { props } = input;
  let outcome: ContinueCheckOutcome;
  try {
    outcome = await act(input, evaluation, step.stepNumber);
  } catch (error) {
    // A monitor sees every evaluation, also one whose wait was aborted or whose checkpoint
    // could not be saved; the original failure is the one reported.
    try {
      callOnDecision(props, evaluation, step);
    } catch {}
    throw error;
  }
  callOnDecision(props, evaluation, step);
  return outcome;
}

async function act(
  input: ContinueCheckInput,
  evaluation: ContinueEvaluation,
  stepNumber: number,
): Promise<ContinueCheckOutcome> {
  const { evaluator, tick, signal, emit } = input;
  switch (evaluation.decision) {
    case 'stop':
      return {
        kind: 'end',
        status: 'stopped',
        reason: `ContinueGate stopped the run: ${evaluation.reasons.join('; ')}.`,
      };
    case 'pause':
      return {
        kind: 'end',
        status: 'paused',
        reason: `ContinueGate paused the run for review: ${evaluation.reasons.join('; ')}. Call run() to resume.`,
      };
    case 'throttle':
      emit({ type: 'continue:throttled', tick, cooldownMs: evaluator.config.cooldownMs });
      await sleep(evaluator.config.cooldownMs, signal);
      return { kind: 'proceed' };
    case 'checkpoint': {
      const snapshotId = await input.saveCheckpoint(stepNumber);
      emit({ type: 'checkpoint:saved', tick, step: stepNumber, snapshotId });
      return { kind: 'proceed' };
    }
    case 'continue':
      return { kind: 'proceed' };
  }
}

function callOnDecision(
  props: ContinueGateProps,
  evaluation: ContinueEvaluation,
  step: StepContext,
): void {
  if (props.onDecision === undefined) return;
  try {
    props.onDecision(evaluation, step);
  } catch (error) {
    throw new AgateError(`The ContinueGate's onDecision threw: ${errorMessage(error)}`, {
      cause: error,
    });
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
