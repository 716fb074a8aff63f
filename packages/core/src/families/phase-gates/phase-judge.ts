import { isScratchPath } from '../../checks/scratch.js';
import { createdByRun } from './file-origin.js';
import {
  type FileRecord,
  isUntested,
  type PhaseLedger,
  untestedUnknowns,
} from './phase-ledger-state.js';
import type { PhaseGateOptions, PhaseStatus, VerificationJudgement } from './phase-types.js';
import { levelMet, meets, requiredLevel } from './verification-levels.js';

export type { VerificationJudgement };

/** Whether a path (as the calls name it) is one of the work product's files. */
export function inWorkProduct(path: string, workProduct: readonly string[]): boolean {
  const p = path.replace(/^\.\//, '');
  return workProduct.some(
    (w) => p === w || p.endsWith(`/${w}`) || w.endsWith(`/${p}`) || w.startsWith(`${p}/`),
  );
}

/**
 * Judges the verification phase from the calls: which changes since the last verification
 * count. With `workProduct` (the files that differ from the start at the end), a change counts
 * when it touched one of them; without, unless it touched only files the run created and later
 * deleted, `/tmp` or build output. A change with unknown targets always counts.
 */
export function judgeFromCalls(
  ledger: PhaseLedger,
  options: PhaseGateOptions & { workProduct?: readonly string[] },
): VerificationJudgement {
  const every = options.changes === 'every-file-operation';
  const counts = (path: string, record: FileRecord) => {
    if (every) return true;
    if (options.workProduct !== undefined)
      return inWorkProduct(path, options.workProduct) && !isScratchPath(path);
    return !(createdByRun(ledger, path, record) && !record.exists) && !isScratchPath(path);
  };
  const unverified: string[] = [];
  const untested: string[] = [];
  let changed = ledger.unknownEver;
  for (const [path, record] of Object.entries(ledger.files)) {
    if (!record.changed || !counts(path, record)) continue;
    changed = true;
    if (record.dirty) unverified.push(path);
    if (isUntested(record)) untested.push(path);
  }
  for (const label of ledger.unknownDirty) unverified.push(`(unknown targets) ${label}`);
  for (const label of untestedUnknowns(ledger)) untested.push(`(unknown targets) ${label}`);
  return { unverified, changed, untested };
}

/** The phases from the ledger (and, when known, the workspace's own judgement of verification). */
export function phaseStatus(
  ledger: PhaseLedger,
  options: PhaseGateOptions & { workProduct?: readonly string[] } = {},
  judgement: VerificationJudgement = judgeFromCalls(ledger, options),
): PhaseStatus {
  const filesRead = ledger.filesRead.length + ledger.readsWithoutPath;
  const understanding = filesRead > 0 && (ledger.searchUsed || ledger.patchesProposed > 0);
  const change = judgement.changed;
  const level = requiredLevel(options);
  const verification =
    level === 'any' ? ledger.verifyUsed : meets(levelMet(ledger, judgement), level);
  return {
    understanding,
    change,
    verification,
    readiness: understanding && change && verification,
    evidence: {
      filesRead,
      searchUsed: ledger.searchUsed,
      patchesProposed: ledger.patchesProposed,
      verifyUsed: ledger.verifyUsed,
      noProgressYet: ledger.calls >= 2 && !ledger.progress,
      stepsTaken: ledger.stepsTaken,
    },
  };
}
