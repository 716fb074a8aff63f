import type { SessionSnapshot } from '@agate/core';
import type { PostgresStore } from '@agate/postgres';
import { DBOSWorkflowConflictError } from '@dbos-inc/dbos-sdk/datasource';
// DBOS's ownership token of the execution in progress. Not in DBOS's public index, but exported
// by the package ('./internal/*'); the dependency is pinned to the exact version it was read
// from, and step-log.test.ts fails if the fence stops working.
import { currentOwnerXid } from '@dbos-inc/dbos-sdk/internal/context';
import type pg from 'pg';
import { DatabaseDownError, databaseWork } from './retry.js';
import { SCHEMA } from './tables.js';

/**
 * A durable run's steps, recorded by Agate in its own table instead of DBOS's `runStep`.
 *
 * Why not `DBOS.runStep`: DBOS spends five transactions on each step (two reads of the run's
 * status before it, the recorded-output look-up, one more status read per attempt, and the
 * record), so a tick's model step and tool step cost ten. Here a run reads its recorded steps
 * once when it starts (or starts again after a crash), and each step costs one transaction.
 * What DBOS's steps guarantee is kept:
 *
 * - a recorded step is never run again: its answer (or its error) is returned in every later
 *   execution of the run, in order, and a step of another name at that place is refused;
 * - only the run's owner records: in the recording statement, the run's status row is locked
 *   and its owner compared with this execution's token (DBOS's own check before it records a
 *   step) before the row goes in, so an execution that lost the run to a recovering worker
 *   writes nothing (and a save folded into its transaction rolls back), and a recovering
 *   worker's claim waits for a record in flight;
 * - two executions recording one step: the first insert wins and both go on with its answer.
 */

/** DBOS's system schema (the worker leaves DBOS's default). */
const DBOS_SCHEMA = '"dbos"';

/** An answer as recorded: JSON text, or the error the step threw. */
export interface RecordedStep {
  name: string;
  output: string | null;
  error: { name: string; message: string } | null;
}

/** When the step's work started (epoch ms), for benches and people reading the table. */
export type NewStep = RecordedStep & { startedMs: number };

/** The run's recorded steps by their place (one read when an execution starts). */
export async function loadSteps(
  pool: pg.Pool,
  workflowId: string,
): Promise<Map<number, RecordedStep>> {
  const { rows } = await whileDatabaseDown(() =>
    pool.query<{ idx: number } & RecordedStep>(
      `SELECT idx, name, output, error FROM ${SCHEMA}.steps WHERE workflow_id = $1`,
      [workflowId],
    ),
  );
  return new Map(rows.map((r) => [r.idx, { name: r.name, output: r.output, error: r.error }]));
}

/** Where a run's steps are recorded: the run database, and its store when saves can share. */
export interface StepLog {
  pool: pg.Pool;
  /** The session store on the same database, when the worker made it (it saves in the step's transaction). */
  store?: PostgresStore;
}

/**
 * Records a step's answer, and returns the answer that counts: this one, or the one another
 * execution of the run recorded first. With `save` (and a store on the run database), the
 * session is saved in the same transaction: both commit, or neither. Throws DBOS's
 * `DBOSWorkflowConflictError` when this execution no longer owns the run (nothing is written).
 */
export function recordStep(
  log: StepLog,
  workflowId: string,
  index: number,
  step: NewStep,
  save?: SessionSnapshot,
): Promise<RecordedStep> {
  const { store } = log;
  if (save !== undefined && store !== undefined) {
    return whileDatabaseDown(() =>
      store.transact(async (tx) => {
        const answer = await insertStep(tx.client, workflowId, index, step);
        // A step another execution recorded first carries its own save: none here.
        if (answer === step) await tx.save(save);
        return answer;
      }),
    );
  }
  return whileDatabaseDown(() => insertStep(log.pool, workflowId, index, step));
}

/**
 * The step's row and the ownership fence in one statement (one round trip; without a save, no
 * transaction around it): the run's status row is locked first (DBOS's own check before it
 * records a step), and the row is inserted only while this execution owns the run. A recovering
 * worker's claim of the run waits for this statement's transaction, and the new owner's insert
 * of the same step finds this one. A named prepared statement: planned once per connection
 * (planning the status row's lock took more time than running it).
 */
const RECORD_STEP = {
  name: 'agate_dbos_record_step',
  text: `WITH owner AS (
    SELECT owner_xid FROM ${DBOS_SCHEMA}.workflow_status
    WHERE workflow_uuid = $1 AND $8::text IS NOT NULL FOR NO KEY UPDATE
  ), owned AS (
    SELECT $8::text IS NULL OR EXISTS (SELECT 1 FROM owner WHERE owner_xid = $8::text) AS owned
  ), inserted AS (
    INSERT INTO ${SCHEMA}.steps (workflow_id, idx, name, output, error, started_ms, ended_ms)
    SELECT $1, $2, $3, $4, $5, $6, $7 FROM owned WHERE owned.owned
    ON CONFLICT DO NOTHING RETURNING 1
  )
  SELECT (SELECT owned FROM owned) AS owned, (SELECT count(*)::int FROM inserted) AS inserted`,
} as const;

/** The step's row, on a connection (a transaction's, or the pool's): see `recordStep`. */
async function insertStep(
  client: pg.Pool | pg.PoolClient,
  workflowId: string,
  index: number,
  step: NewStep,
): Promise<RecordedStep> {
  const token = currentOwnerXid(workflowId) ?? null;
  const { rows } = await client.query<{ owned: boolean; inserted: number }>({
    ...RECORD_STEP,
    values: [
      workflowId,
      index,
      step.name,
      step.output,
      step.error,
      step.startedMs,
      Date.now(),
      token,
    ],
  });
  if (rows[0]?.owned !== true) throw new DBOSWorkflowConflictError(workflowId);
  if (rows[0].inserted === 1) return step;
  // Recorded first by another execution of this run: its answer counts.
  const found = await client.query<RecordedStep>(
    `SELECT name, output, error FROM ${SCHEMA}.steps WHERE workflow_id = $1 AND idx = $2`,
    [workflowId, index],
  );
  const first = found.rows[0];
  if (first === undefined) throw new Error(`step ${index} of ${workflowId} vanished`);
  return first;
}

/** The answer a recorded step stands for: its value, or its error thrown again. */
export function replayStep<T>(recorded: RecordedStep): T {
  if (recorded.error !== null) {
    const error = new Error(recorded.error.message);
    error.name = recorded.error.name;
    throw error;
  }
  return (recorded.output === null ? undefined : JSON.parse(recorded.output)) as T;
}

/** A step's outcome as it is recorded. */
export function toRecord(
  name: string,
  startedMs: number,
  outcome: { value: unknown } | { error: unknown },
): NewStep {
  if ('error' in outcome) {
    const e = outcome.error;
    return {
      name,
      startedMs,
      output: null,
      error: {
        name: e instanceof Error ? e.name : 'Error',
        message: e instanceof Error ? e.message : String(e),
      },
    };
  }
  return {
    name,
    startedMs,
    output: outcome.value === undefined ? null : JSON.stringify(outcome.value),
    error: null,
  };
}

/**
 * Database work retried while the database is unreachable (about half an hour of attempts, as
 * DBOS's step retries were): a lost connection in `work` is waited out.
 */
export function whileDatabaseDown<T>(work: () => Promise<T>): Promise<T> {
  return retryWhileDown(() => databaseWork(work));
}

/**
 * `work` tried again while it throws `DatabaseDownError`, and only then: a step's body says so
 * for its own database work (before its call), never for the model's or a tool's failures.
 */
export async function retryWhileDown<T>(work: () => Promise<T>): Promise<T> {
  let waitMs = 500;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof DatabaseDownError) || attempt >= DATABASE_DOWN_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      waitMs *= 1.5;
    }
  }
}

const DATABASE_DOWN_ATTEMPTS = 20;
