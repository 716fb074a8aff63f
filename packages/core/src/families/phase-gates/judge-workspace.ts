import { isScratchPath } from '../../checks/scratch.js';
import {
  changedFiles,
  type Fingerprint,
  fingerprintWorkspace,
} from '../../workspace/fingerprint.js';
import type { VerificationJudgement } from './phase-judge.js';

/**
 * The work product judged on the workspace itself: what differs from the start now, and which
 * of those files changed since the fingerprint taken at the last verification that ran (and
 * since the one taken at the last run of the project's tests). Files that neither existed at
 * the start nor exist now (scratch files made and deleted) never count; build output and caches
 * never count.
 */
export async function judgeWorkspace(
  dir: string,
  start: Fingerprint,
  lastVerification: Fingerprint | undefined,
  lastProjectTests?: Fingerprint,
): Promise<VerificationJudgement> {
  const now = await fingerprintWorkspace(dir);
  const product = (await changedFiles(dir, start, now)).filter((p) => !isScratchPath(p));
  const changedSince = async (mark: Fingerprint | undefined) => {
    if (mark === undefined) return product;
    const since = await changedFiles(dir, mark, now);
    return since.filter((p) => (start.has(p) || now.has(p)) && !isScratchPath(p));
  };
  return {
    unverified: await changedSince(lastVerification),
    changed: product.length > 0,
    untested: await changedSince(lastProjectTests),
  };
}
