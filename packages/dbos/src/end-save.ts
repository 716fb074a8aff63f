import { type SessionSnapshot, type SessionStore, StaleSessionError } from '@agate/core';
import type pg from 'pg';
import type { WakeMessage } from './options.js';
import { SCHEMA } from './tables.js';

/** Conditional saves lost to another writer before the end is saved unconditionally. */
const STALE_TRIES = 5;

/**
 * Saves the state a run ended a round with (`agate:end`) and returns its fingerprint — once per
 * end, however often the step runs. A worker killed after the save but before DBOS recorded the
 * step runs the step again; by then a person may have decided on the saved state (it says
 * `awaiting-approval`), and saving the end again would overwrite that decision. So the revision
 * the save will make is noted first (`agate_dbos.ends`), and a later attempt that finds the
 * session at or past it saves nothing: what came after is someone else's, and the run's wait
 * (fingerprinted with the revision it saved) is woken by it.
 *
 * Stores without revisions get the save every time (nothing tells a later write from ours).
 */
export async function saveEnd(
  pool: pg.Pool,
  store: SessionStore,
  workflowId: string,
  round: number,
  end: SessionSnapshot,
): Promise<string> {
  let trustMark = true;
  for (let attempt = 1; ; attempt++) {
    const before = await store.load(end.id);
    if (before !== undefined && before.revision === undefined) {
      await store.save(end);
      return fingerprint(end);
    }
    const stored = before?.revision ?? 0;
    if (trustMark) {
      const planned = await plannedRevision(pool, workflowId, round);
      if (planned !== undefined && stored >= planned) return `r${planned}`;
    }
    if (attempt > STALE_TRIES) {
      // Written under us again and again: the run's end state wins, as at every tick.
      await store.save(end);
      const after = await store.load(end.id);
      return fingerprint(after ?? end);
    }
    await planRevision(pool, workflowId, round, stored + 1);
    try {
      await store.save(end, { expectedRevision: stored });
      return `r${stored + 1}`;
    } catch (error) {
      if (!StaleSessionError.isInstance(error)) throw error;
      // Someone else wrote it since the load: the mark names a revision that is not ours.
      trustMark = false;
    }
  }
}

/** What tells a decided session from the one the run saved: its revision, or its save time. */
export function fingerprint(snapshot: SessionSnapshot): string {
  const { revision } = snapshot;
  return revision !== undefined ? `r${revision}` : `t${snapshot.savedAt}`;
}

/**
 * Whether a wake message is news for a wait whose end was saved with fingerprint `print`: a
 * cancellation always is; a change only when the stored session is newer than that end (a
 * higher revision; for stores without revisions, another save time). Messages are sent by
 * whoever saw a change, possibly of an earlier wait, so the run checks, not the sender.
 * `print` undefined (a run recorded before ends returned it): every message counts, as before.
 */
export function wakesWait(message: WakeMessage, print: string | undefined): boolean {
  if (message.kind !== 'changed' || print === undefined) return true;
  const now = /^r(\d+)$/.exec(message.fingerprint);
  const then = /^r(\d+)$/.exec(print);
  if (now !== null && then !== null) return Number(now[1]) > Number(then[1]);
  return message.fingerprint !== print;
}

/** Forgets a run's marks once it has ended (nothing replays its ends after that). */
export async function forgetEnds(pool: pg.Pool, workflowId: string): Promise<void> {
  await pool.query(`DELETE FROM ${SCHEMA}.ends WHERE workflow_id = $1`, [workflowId]);
}

async function plannedRevision(
  pool: pg.Pool,
  workflowId: string,
  round: number,
): Promise<number | undefined> {
  const { rows } = await pool.query<{ revision: string }>(
    `SELECT revision FROM ${SCHEMA}.ends WHERE workflow_id = $1 AND round = $2`,
    [workflowId, round],
  );
  return rows[0] === undefined ? undefined : Number(rows[0].revision);
}

async function planRevision(
  pool: pg.Pool,
  workflowId: string,
  round: number,
  revision: number,
): Promise<void> {
  await pool.query(
    `INSERT INTO ${SCHEMA}.ends (workflow_id, round, revision) VALUES ($1, $2, $3)
     ON CONFLICT (workflow_id, round) DO UPDATE SET revision = EXCLUDED.revision`,
    [workflowId, round, revision],
  );
}
