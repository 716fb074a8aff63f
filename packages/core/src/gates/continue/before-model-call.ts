import type { AgateEvent } from '../../runtime/events.js';
import type { TickResult } from '../../runtime/tick-result.js';
import type { RunStatus, SessionState } from '../../state/session-state.js';
import type { ContinueGateEvaluator } from './evaluator.js';
import type { ContinueGateProps } from './props.js';
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
export async function checkContinue(input: ContinueCheckInput): Promise<ContinueCheckOutcome> {
  const { props, evaluator, state, tick, signal, emit } = input;
  const step = buildStepContext(state, props, { state, recentTicks: input.recentTicks });
  const evaluation = evaluator.evaluate(step);
  emit({ type: 'continue:evaluated', tick, evaluation, step });

  let outcome: ContinueCheckOutcome = { kind: 'proceed' };
  switch (evaluation.decision) {
    case 'stop':
      outcome = {
        kind: 'end',
        status: 'stopped',
        reason: `ContinueGate stopped the run: ${evaluation.reasons.join('; ')}.`,
      };
      break;
    case 'pause':
      outcome = {
        kind: 'end',
        status: 'paused',
        reason: `ContinueGate paused the run for review: ${evaluation.reasons.join('; ')}. Call run() to resume.`,
      };
      break;
    case 'throttle':
      emit({ type: 'continue:throttled', tick, cooldownMs: evaluator.config.cooldownMs });
      await sleep(evaluator.config.cooldownMs, signal);
      break;
    case 'checkpoint': {
      const snapshotId = await input.saveCheckpoint(step.stepNumber);
      emit({ type: 'checkpoint:saved', tick, step: step.stepNumber, snapshotId });
      break;
    }
    case 'continue':
      break;
  }
  props.onDecision?.(evaluation, step);
  return outcome;
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
