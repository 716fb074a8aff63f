import { commandOf } from './call-parts.js';
import { judgeFromCalls, phaseStatus } from './phase-judge.js';
import { createPhaseLedger, recordStep } from './phase-ledger.js';
import { type CallCategory, callToPhaseCall, type TrackerOptions } from './phase-tracker.js';
import type { PhaseCall, PhaseStatus, PhaseStep } from './phase-types.js';

/**
 * The phases of a run from its tool calls, in order — pure, no React. Understanding: a read
 * and (a search or a change); change: a change; verification: a verification that ran after
 * the last change that needs one (`verification: 'any'`: any verification); readiness: all three.
 * Calls of one tick are one step.
 */
export function evaluatePhaseGates(
  steps: readonly PhaseStep[],
  options: TrackerOptions = {},
): PhaseStatus {
  const ledger = createPhaseLedger();
  let i = 0;
  while (i < steps.length) {
    const tick = steps[i]!.tick;
    const calls: PhaseCall[] = [];
    for (; i < steps.length && steps[i]!.tick === tick; i++) {
      const s = steps[i]!;
      calls.push(
        callToPhaseCall(ledger, s.toolName, categoryOf(s), s.input, s.result, options.testCommands),
      );
    }
    recordStep(ledger, calls, options);
  }
  if (steps.length > 0) {
    const ticks = steps.map((s) => s.tick);
    ledger.stepsTaken = Math.max(ledger.stepsTaken, Math.max(...ticks) - Math.min(...ticks) + 1);
  }
  return phaseStatus(ledger, options, judgeFromCalls(ledger, options));
}

export function categoryOf(step: Pick<PhaseStep, 'category' | 'input'>): CallCategory {
  if (step.category === 'shell') return { kind: 'shell', command: commandOf(step.input) };
  return {
    kind: 'fixed',
    categories: typeof step.category === 'string' ? [step.category] : step.category,
  };
}
