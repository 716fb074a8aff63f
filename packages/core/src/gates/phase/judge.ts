import type { FileRecord, PhaseLedger } from './ledger.js';
import { isScratchPath } from './scratch.js';
import type { PhaseGateOptions, PhaseStatus } from './types.js';

// Files programs write as output (images, databases, logs, rendered docs), never source.
const OUTPUT_FILE =
  /\.(?:dot|html?|png|jpe?g|gif|svg|pdf|eps|ps|sqlite3?|db|pickle|pkl|npy|npz|nc|h5|hdf5|parquet|csv|tsv|out|log|tmp|bak|new|orig|rej|prof|coverage)$/i;

/**
 * Whether the run made a file, as far as the calls tell: it wrote the file whole first, or made
 * a directory above it, or the file is program output (an image, a database, a log) that the
 * run only ever read before deleting it.
 */
function createdByRun(ledger: PhaseLedger, path: string, record: FileRecord): boolean {
  if (record.created) return true;
  for (let dir = posixDirname(path); dir !== ''; dir = posixDirname(dir)) {
    if (ledger.files[dir]?.created === true) return true;
  }
  return !record.exists && record.readOnlyBefore === true && OUTPUT_FILE.test(path);
}

function posixDirname(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '' : path.slice(0, i);
}

/** Whether a path (as the calls name it) is one of the work product's files. */
export function inWorkProduct(path: string, workProduct: readonly string[]): boolean {
  const p = path.replace(/^\.\//, '');
  return workProduct.some(
    (w) => p === w || p.endsWith(`/${w}`) || w.endsWith(`/${p}`) || w.startsWith(`${p}/`),
  );
}

export interface VerificationJudgement {
  /** Changes that need a later verification and have none (paths, or `(unknown targets) <command>`). */
  unverified: string[];
  /** The run made a change that needs verifying (to the work product, or to unknown targets). */
  changed: boolean;
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
  let changed = ledger.unknownEver;
  for (const [path, record] of Object.entries(ledger.files)) {
    if (!record.changed || !counts(path, record)) continue;
    changed = true;
    if (record.dirty) unverified.push(path);
  }
  for (const label of ledger.unknownDirty) unverified.push(`(unknown targets) ${label}`);
  return { unverified, changed };
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
  const verification =
    options.verification === 'any'
      ? ledger.verifyUsed
      : change && judgement.unverified.length === 0;
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
