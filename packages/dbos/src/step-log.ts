import type { SessionSnapshot } from '@agate/core';
import type { PostgresStore } from '@agate/postgres';
import { DBOSWorkflowConflictError } from '@dbos-inc/dbos-sdk/datasource';
// DBOS's ownership token of the execution in progress. Not in DBOS's public index, but exported
// by the package ('./internal/*'); the dependency is pinned to the exact version it was read
// from, and step-log.test.ts fails if the fence stops working.
import { currentOwnerXid } from '@dbos-inc/dbos-sdk/internal/context';
import type pg from 'pg';
import { DatabaseDownError, databaseWork } from './retry.js';
import { inTransaction, SCHEMA } from './tables.js';

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
 * - only the run's owner records: inside the recording transaction, after the row is inserted,
 *   the run's status row is locked and its owner compared with this execution's token (DBOS's
 *   own check before it records a step), so an execution that lost the run to a recovering
 *   worker rolls back, and the new owner's insert of the same step waits for that;
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
  return whileDatabaseDown(() =>
    inTransaction(log.pool, (client) => insertStep(client, workflowId, index, step)),
  );
}

/** The step's row, on a transaction's connection: see `recordStep`. */
async function insertStep(
  client: pg.PoolClient,
  workflowId: string,
  index: number,
  step: NewStep,
): Promise<RecordedStep> {
  const inserted = await client.query(
    `INSERT INTO ${SCHEMA}.steps (workflow_id, idx, name, output, error, started_ms, ended_ms)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
    [workflowId, index, step.name, step.output, step.error, step.startedMs, Date.now()],
  );
  if (inserted.rowCount === 0) {
    const { rows } = await client.query<RecordedStep>(
      `SELECT name, output, error FROM ${SCHEMA}.steps WHERE workflow_id = $1 AND idx = $2`,
      [workflowId, index],
    );
    const first = rows[0];
    if (first === undefined) throw new Error(`step ${index} of ${workflowId} vanished`);
    return first;
  }
  // After the insert: a new owner's insert of this step now waits for this transaction.
  const token = currentOwnerXid(workflowId);
  if (token !== undefined) {
    const { rows } = await client.query<{ owner_xid: string | null }>(
      `SELECT owner_xid FROM ${DBOS_SCHEMA}.workflow_status WHERE workflow_uuid = $1 FOR NO KEY UPDATE`,
      [workflowId],
    );
    if (rows[0]?.owner_xid !== token) throw new DBOSWorkflowConflictError(workflowId);
  }
  return step;
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
