import {
  changedFiles,
  type Fingerprint,
  fingerprintWorkspace,
} from '../../workspace/fingerprint.js';
import type { VerificationJudgement } from './judge.js';
import { isScratchPath } from './scratch.js';

/**
 * The work product judged on the workspace itself: what differs from the start now, and which
 * of those files changed since the fingerprint taken at the last verification that ran. Files
 * that neither existed at the start nor exist now (scratch files made and deleted) never count;
 * build output and caches never count.
 */
export async function judgeWorkspace(
  dir: string,
  start: Fingerprint,
  lastVerification: Fingerprint | undefined,
): Promise<VerificationJudgement> {
  const now = await fingerprintWorkspace(dir);
  const product = (await changedFiles(dir, start, now)).filter((p) => !isScratchPath(p));
  if (lastVerification === undefined) return { unverified: product, changed: product.length > 0 };
  const since = await changedFiles(dir, lastVerification, now);
  const unverified = since.filter((p) => (start.has(p) || now.has(p)) && !isScratchPath(p));
  return { unverified, changed: product.length > 0 };
}
