import { hostname } from 'node:os';
import { produce } from 'immer';
import { AgateError, nameErrorClass } from '../ground/agate-error.js';
import { StaleSessionError } from '../persistence/persistence-errors.js';
import { createSnapshot } from '../persistence/snapshot.js';
import type { SessionCore } from './session-core.js';
import type { RunOptions } from './session-options.js';

/**
 * A run of a stored session claims it: at `run()` start the session is saved as `running`
 * (over the revision it was loaded at) with a reason naming the process, so that a second
 * `run()` of the same stored session elsewhere is refused instead of overwriting it. The
 * claim is released by the save at the run's end.
 */
const PREFIX = 'run() in progress: process ';

export interface RunClaim {
  pid: number;
  host: string;
  since: string;
}

/** The stored reason of a claimed session. */
export function claimReason(at: Date = new Date()): string {
  return `${PREFIX}${process.pid} on ${hostname()} since ${at.toISOString()}`;
}

/** The claim a stored `running` session's reason records, or undefined (not claimed). */
export function parseClaim(status: string, reason: string | undefined): RunClaim | undefined {
  if (status !== 'running' || reason === undefined || !reason.startsWith(PREFIX)) return undefined;
  const match = /^(\d+) on (\S+) since (\S+)$/.exec(reason.slice(PREFIX.length));
  if (match === null) return undefined;
  return { pid: Number(match[1]), host: match[2] as string, since: match[3] as string };
}

/** True when the claim's process is known to be gone: same host, and no such pid. */
export function claimIsDead(claim: RunClaim): boolean {
  if (claim.host !== hostname()) return false;
  if (claim.pid === process.pid) return false;
  try {
    process.kill(claim.pid, 0);
    return false;
  } catch (error) {
    return (error as { code?: unknown }).code === 'ESRCH';
  }
}

/**
 * `run()` of a stored session that another process is running (its claim is stored, or it
 * saved the session since this one loaded it). Nothing was run and nothing written.
 */
export class SessionRunningElsewhereError extends AgateError {
  static {
    nameErrorClass(SessionRunningElsewhereError, 'SessionRunningElsewhereError');
  }
  /** The session another process claimed. */
  readonly sessionId: string;
  constructor(sessionId: string, why: string) {
    super(
      `Session "${sessionId}" is running elsewhere: ${why}. Nothing was run and nothing was written. ` +
        'Wait for that run to end and load the session again; if that process is gone for good ' +
        '(killed, its machine lost), take the session over with run({ takeOver: true }) ' +
        '(agate run --resume ID --take-over).',
    );
    this.sessionId = sessionId;
  }
}

/**
 * A stored session (loaded with a revision, run with an explicit store) is claimed at run
 * start: saved as running, over the revision it was loaded at. Throws
 * `SessionRunningElsewhereError` when another process holds a claim (unless `takeOver`, or
 * that process is known dead) or saved the session in between. True when claimed.
 */
export async function claimRun(core: SessionCore, options: RunOptions): Promise<boolean> {
  if (core.options.store === undefined || core.storedRevision === undefined) return false;
  const { status, reason } = core.state;
  const held = parseClaim(status, reason);
  if (held !== undefined && options.takeOver !== true) {
    if (!claimIsDead(held)) {
      throw new SessionRunningElsewhereError(
        core.id,
        `process ${held.pid} on ${held.host} claimed it at ${held.since} (store revision ${core.storedRevision})`,
      );
    }
    core.emit({
      type: 'warning',
      tick: core.state.tick,
      code: 'run-taken-over',
      message: `Session "${core.id}" was claimed by process ${held.pid} on this host, which is gone; this run takes it over.`,
    });
  }
  const claim = produce(core.state, (draft) => {
    draft.status = 'running';
    draft.reason = claimReason();
  });
  try {
    await core.saveToStore(createSnapshot(core.id, claim, 'running'));
  } catch (error) {
    if (StaleSessionError.isInstance(error)) {
      throw new SessionRunningElsewhereError(
        core.id,
        `it was saved by another process since it was loaded (revision ${error.expectedRevision}, now ${error.actualRevision})`,
      );
    }
    throw error;
  }
  return true;
}
