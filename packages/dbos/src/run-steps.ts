import type { SessionSnapshot } from '@agate/core';
import { DBOSWorkflowConflictError } from '@dbos-inc/dbos-sdk/datasource';
import { StepOrderError } from './errors.js';
import { DatabaseDownError, databaseWork } from './retry.js';
import type { StepGate } from './step-gate.js';
import {
  type RecordedStep,
  recordStep,
  replayStep,
  retryWhileDown,
  type StepLog,
  toRecord,
} from './step-log.js';
import { type StepPhase, stepProbe } from './step-probe.js';

/** A checked step's answer: the call's value, or "cancelled" (recorded like any answer). */
export type Checked<T> = { cancelled: true } | { cancelled: false; value: T };

/** One execution's steps of a durable run, numbered in the order the run takes them. */
export interface RunSteps {
  /**
   * One step (step-log.ts): its recorded answer when it has one, else its work done and
   * recorded; with the step probe's three points around it (tests stop a worker at each).
   */
  step<T>(name: string, work: () => Promise<T>): Promise<T>;
  /**
   * A model or tool call as a step. It first looks for a cancellation (so a replay stops at the
   * same step) and does the step's database work (`prepare`); both are retried while the
   * database is down, the call itself never.
   */
  checked<T>(
    name: string,
    prepare: () => Promise<void>,
    work: () => Promise<T>,
  ): Promise<Checked<T>>;
  /** A step of database work only, retried while the database is down. */
  db<T>(name: string, work: () => Promise<T>): Promise<T>;
  /** The save the step in progress records with its answer, in one transaction. */
  fold(snapshot: SessionSnapshot): void;
  /** Set when a record found the run owned by another execution: every later step refuses. */
  lost(): DBOSWorkflowConflictError | undefined;
}

export function createRunSteps(options: {
  workflowId: string;
  /** Every answer this run recorded in earlier executions (none on its first). */
  recorded: ReadonlyMap<number, RecordedStep>;
  gate: StepGate;
  stepLog: StepLog;
  isCancelled: () => Promise<boolean>;
}): RunSteps {
  const { workflowId, recorded, gate, stepLog, isCancelled } = options;
  /** The run's own steps so far: a step's place, the same in every replay. */
  let stepIndex = 0;
  let folded: SessionSnapshot | undefined;
  let lost: DBOSWorkflowConflictError | undefined;

  /** The step's work done now (no earlier answer), and recorded with the folded save. */
  const live = async (
    name: string,
    index: number,
    work: () => Promise<unknown>,
    at: (phase: StepPhase) => Promise<void>,
  ): Promise<RecordedStep> => {
    const startedMs = Date.now();
    let outcome: { value: unknown } | { error: unknown };
    try {
      outcome = { value: await retryWhileDown(work) };
    } catch (error) {
      if (error instanceof DatabaseDownError) throw error;
      outcome = { error };
    }
    await at('during');
    const save = folded;
    folded = undefined;
    return recordStep(stepLog, workflowId, index, toRecord(name, startedMs, outcome), save).catch(
      (error: unknown) => {
        // Another execution owns the run now: this one does nothing more, not even its end.
        if (error instanceof DBOSWorkflowConflictError) lost = error;
        throw error;
      },
    );
  };

  const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    if (lost !== undefined) throw lost;
    const index = stepIndex++;
    const probe = stepProbe();
    const at = async (phase: StepPhase) => probe?.({ workflowId, step: name, index, phase });
    await at('before');
    const answer = await gate.run(async () => {
      const earlier = recorded.get(index);
      if (earlier === undefined) return live(name, index, work, at);
      if (earlier.name !== name) throw new StepOrderError(workflowId, index, earlier.name, name);
      return earlier;
    });
    await at('after');
    return replayStep<T>(answer);
  };

  return {
    step,
    checked: (name, prepare, work) =>
      step(name, async () => {
        const cancelled = await databaseWork(async () => {
          if (await isCancelled()) return true;
          await prepare();
          return false;
        });
        return cancelled ? { cancelled: true } : { cancelled: false, value: await work() };
      }),
    db: (name, work) => step(name, () => databaseWork(work)),
    fold(snapshot) {
      folded = snapshot;
    },
    lost: () => lost,
  };
}
