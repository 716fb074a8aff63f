import type { PhaseLedger } from './phase-ledger-state.js';
import type { PhaseGateOptions, VerificationJudgement, VerificationLevel } from './phase-types.js';

/** The strictest level a run's finish meets; `'none'`: not even `'ran'`. */
export type VerificationLevelMet = 'none' | VerificationLevel;

const ORDER: readonly VerificationLevelMet[] = [
  'none',
  'ran',
  'passed',
  'project-tests-once',
  'project-tests',
];

/** The level the options ask for: `'ran'` unless they say otherwise. */
export function requiredLevel(options: PhaseGateOptions): 'any' | VerificationLevel {
  return options.verification ?? 'ran';
}

/** Whether a met level satisfies a required one. */
export function meets(met: VerificationLevelMet, required: VerificationLevel): boolean {
  return ORDER.indexOf(met) >= ORDER.indexOf(required);
}

/**
 * The strictest level the checks after the last change meet. `'ran'`: every change that needs
 * verifying has a check that ran after it. `'passed'`: and the last check did not fail.
 * `'project-tests-once'`: and the project's own tests ran at least once in the run, not failing
 * when they ran after the last change. `'project-tests'`: and the project's own tests ran after
 * every such change, the last of them not failing.
 */
export function levelMet(
  ledger: PhaseLedger,
  judgement: VerificationJudgement,
): VerificationLevelMet {
  if (!judgement.changed || judgement.unverified.length > 0) return 'none';
  if (ledger.lastCheck?.outcome === 'failed') return 'ran';
  const tests = ledger.lastProjectTests;
  if (tests === undefined) return 'passed';
  // Tests that ran after every change count by their last run; a failure before the fix does not.
  if (judgement.untested.length === 0)
    return tests.outcome === 'failed' ? 'passed' : 'project-tests';
  return 'project-tests-once';
}
