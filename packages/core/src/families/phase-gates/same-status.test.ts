import { describe, expect, it } from 'vitest';
import { sameStatus } from './phase-guard.js';
import { phaseStatus } from './phase-judge.js';
import { createPhaseLedger } from './phase-ledger.js';
import type { PhaseStatus } from './phase-types.js';

const base = phaseStatus(createPhaseLedger());

/** Every status that differs from `base` in exactly one field. */
function variants(): PhaseStatus[] {
  const out: PhaseStatus[] = [];
  for (const key of ['understanding', 'change', 'verification', 'readiness'] as const) {
    out.push({ ...base, [key]: !base[key] });
  }
  for (const key of Object.keys(base.evidence) as Array<keyof PhaseStatus['evidence']>) {
    const value = base.evidence[key];
    const changed = typeof value === 'number' ? value + 1 : !value;
    out.push({ ...base, evidence: { ...base.evidence, [key]: changed } });
  }
  return out;
}

describe('sameStatus', () => {
  it('says what comparing the statuses as JSON says', () => {
    const all = [base, { ...base, evidence: { ...base.evidence } }, ...variants()];
    for (const a of all) {
      for (const b of all) {
        expect(sameStatus(a, b)).toBe(JSON.stringify(a) === JSON.stringify(b));
      }
    }
    expect(variants()).toHaveLength(10);
  });
});
