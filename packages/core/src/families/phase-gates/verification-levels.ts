import type { PhaseLedger } from './phase-ledger-state.js';
import type { PhaseGateOptions, VerificationJudgement, VerificationLevel } from './phase-types.js';

/** The strictest level a run's finish meets; `'none'`: not even `'ran'`. */
export type VerificationLevelMet = 'none' | VerificationLevel;

const ORDER: readonly VerificationLevelMet[] = ['none', 'ran', 'passed', 'project-tests'];

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
 * `'project-tests'`: and the project's own tests ran after every such change, the last of them
 * not failing.
 */
export function levelMet(
  ledger: PhaseLedger,
  judgement: VerificationJudgement,
): VerificationLevelMet {
  if (!judgement.changed || judgement.unverified.length > 0) return 'none';
  if (ledger.lastCheck?.outcome === 'failed') return 'ran';
  if (
    judgement.untested.length > 0 ||
    ledger.lastProjectTests === undefined ||
    ledger.lastProjectTests.outcome === 'failed'
  )
    return 'passed';
  return 'project-tests';
}
