import {
  AgateError,
  createSession,
  nameErrorClass,
  type RunResult,
  type Session,
  type SessionSnapshot,
  type SessionStore,
} from '@agate/core';
import type { DurableSteps } from '@agate/core/internal';
import { createSnapshot } from '@agate/core/stores';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { DBOSWorkflowConflictError } from '@dbos-inc/dbos-sdk/datasource';
import type pg from 'pg';
import type { CancelWatch } from './cancellations.js';
import { deferredStore } from './deferred-store.js';
import { forgetEnds, saveEnd, wakesWait } from './end-save.js';
import { StepOrderError, UnknownAgentError } from './errors.js';
import {
  type DurableAgents,
  type DurableRunResult,
  NAMES,
  type RunRequest,
  type WakeMessage,
} from './options.js';
import { toDurableResult } from './result.js';
import { DatabaseDownError, databaseWork } from './retry.js';
import { checkRunRequest } from './run-request.js';
import type { StepGate } from './step-gate.js';
import {
  loadSteps,
  recordStep,
  replayStep,
  retryWhileDown,
  type StepLog,
  toRecord,
} from './step-log.js';
import { type StepPhase, stepProbe } from './step-probe.js';
import { cancelRequested, clearCancel, SCHEMA } from './tables.js';

/** What the workflow needs from the worker of this process. */
export interface WorkflowHost {
  agents: DurableAgents;
  store: SessionStore;
  pool: pg.Pool;
  approvalTimeoutMs: number;
  /** Cancellations this worker heard of (else the table is asked). */
  cancels: CancelWatch;
  /** The steps in flight, closed when the worker stops. */
  gate: StepGate;
  /** Where steps are recorded (step-log.ts). */
  stepLog: StepLog;
}

/** The reason of a run's signal when `cancelRun` stopped it. */
export class RunCancelledError extends AgateError {
  static {
    nameErrorClass(RunCancelledError, 'RunCancelledError');
  }
  constructor() {
    super('cancelRun() was called for this run; it stopped at a step boundary.');
  }
}

let host: WorkflowHost | undefined;

export function setWorkflowHost(next: WorkflowHost | undefined): void {
  host = next;
}

type Checked<T> = { cancelled: true } | { cancelled: false; value: T };

/**
 * One durable run (a DBOS workflow). DBOS runs this function again from the top after a crash;
 * every call that must not be repeated is a step, whose recorded answer is returned instead:
 * the session's start snapshot, each tick's model call, each tool call, and the saves. The tick
 * loop between them is Agate's own and replays the same way from the same answers.
 */
export async function durableRun(received: RunRequest): Promise<DurableRunResult> {
  const worker = host;
  if (worker === undefined) throw new AgateError('No Agate worker runs in this process.');
  const workflowId = DBOS.workflowID as string;
  // What the queue holds is checked before any step: a request written there by hand, or
  // passed on from a web client, runs nothing unless it is one `startRun` could have sent.
  const request = checkRunRequest(received, workflowId);
  const agent = Object.hasOwn(worker.agents, request.agent)
    ? worker.agents[request.agent]
    : undefined;
  if (agent === undefined) throw new UnknownAgentError(request.agent, Object.keys(worker.agents));
  const { store, pool, cancels, gate, stepLog } = worker;
  /** Known from the listener when it is up; else asked of the table (retried while down). */
  const isCancelled = async () => cancels.known(workflowId) ?? cancelRequested(pool, workflowId);

  /** The run's own steps so far: a step's place, the same in every replay. */
  let stepIndex = 0;
  /** The save the step in progress records with its answer, in one transaction (see below). */
  let folded: SessionSnapshot | undefined;
  /** Set when a record found the run owned by another execution: every later step refuses. */
  let lost: DBOSWorkflowConflictError | undefined;
  // Every answer this run recorded in earlier executions (none on its first): one read.
  const recorded = await loadSteps(pool, workflowId);
  /**
   * One step of the run (step-log.ts): its recorded answer when it has one, else its work done
   * and recorded; with the step probe's three points around it (tests stop a worker at each).
   */
  const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    if (lost !== undefined) throw lost;
    const index = stepIndex++;
    const probe = stepProbe();
    const at = async (phase: StepPhase) => probe?.({ workflowId, step: name, index, phase });
    await at('before');
    const answer = await gate.run(async () => {
      const earlier = recorded.get(index);
      if (earlier !== undefined) {
        if (earlier.name !== name) throw new StepOrderError(workflowId, index, earlier.name, name);
        return earlier;
      }
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
    });
    await at('after');
    return replayStep<T>(answer);
  };

  /**
   * A model or tool call as a step. It first looks for a cancellation ("cancelled" is recorded
   * like any answer, so a replay stops at the same step) and does the step's database work;
   * both are retried while the database is down, the call itself never.
   */
  const checkedStep = <T>(
    name: string,
    prepare: () => Promise<void>,
    work: () => Promise<T>,
  ): Promise<Checked<T>> =>
    step(name, async (): Promise<Checked<T>> => {
      const cancelled = await databaseWork(async () => {
        if (await isCancelled()) return true;
        await prepare();
        return false;
      });
      return cancelled ? { cancelled: true } : { cancelled: false, value: await work() };
    });
  /** A step of database work only, retried while the database is down. */
  const dbStep = <T>(name: string, work: () => Promise<T>): Promise<T> =>
    step(name, () => databaseWork(work));

  const start = await dbStep('agate:start', async () => ({
    cancelled: await isCancelled(),
    snapshot: await loadOrNull(store, request.sessionId),
  }));
  let snapshot: SessionSnapshot | null = start.snapshot;
  let cancelled = start.cancelled;
  let ticks = 0;
  /** Rounds of the run: one session run each, between a start or a decision and an end. */
  let round = 0;
  /** The tick-end save in flight, if any (only live steps start one; a replay starts none). */
  let saving: Promise<void> | undefined;
  const saved = async () => {
    const pending = saving;
    saving = undefined;
    await pending;
  };
  /** The run's result; its cancellation request (if any) left the table in its last step. */
  const ended = (result: RunResult): DurableRunResult => {
    cancels.forget(workflowId);
    return toDurableResult(result, ticks);
  };

  for (;;) {
    const controller = new AbortController();
    if (cancelled) controller.abort(new RunCancelledError());
    const deferred = deferredStore(store);
    let session: Session | undefined;
    const stop = (): never => {
      controller.abort(new RunCancelledError());
      throw controller.signal.reason;
    };
    const steps: DurableSteps = {
      // The state before this tick's model call is the last tick's end: saved with this step.
      model: async (call) => {
        const out = await checkedStep(
          'agate:model',
          async () => {
            await saved();
            // Shares the frozen state (no copy): the save costs what the tick added.
            if (session !== undefined) {
              const snapshot = createSnapshot(session.id, session.state, undefined, {
                shareFrozen: true,
              });
              // On the run database's own store, saved in the transaction that records this
              // step's answer (one commit for both); on another store, beside the call.
              if (stepLog.store !== undefined) folded = snapshot;
              else saving = background(store.save(snapshot));
            }
          },
          call,
        );
        return out.cancelled ? stop() : out.value;
      },
      tool: async (call) => {
        const out = await checkedStep(
          'agate:tool',
          async () => {
            await saved();
            await deferred.flush();
          },
          call,
        );
        return out.cancelled ? stop() : out.value;
      },
    };
    session = createSession(agent.element(request.input), {
      ...agent.options,
      id: request.sessionId,
      ...(snapshot !== null ? { snapshot } : {}),
      store: deferred,
      steps,
    });
    let result: RunResult;
    try {
      result = await session.run({ ...request.runOptions, signal: controller.signal });
    } finally {
      session.dispose();
    }
    if (lost !== undefined) throw lost;
    ticks += result.ticks;
    const end = session.snapshot();
    const waiting = result.status === 'awaiting-approval';
    const thisRound = round++;
    // The end's fingerprint, when the run waits (runs recorded before it was returned: null).
    const print = await dbStep('agate:end', async (): Promise<string | null> => {
      await saved();
      const endPrint = await saveEnd(pool, store, workflowId, thisRound, end);
      if (!waiting) {
        await finish(pool, workflowId);
        return null;
      }
      await recordWait(pool, workflowId, request.sessionId, endPrint);
      return endPrint;
    });
    if (!waiting) return ended(result);

    // Waits inside the workflow: no process is needed meanwhile, and a restart waits again.
    const now = await DBOS.now();
    const deadlineEpochMS = now + worker.approvalTimeoutMs;
    let message = await DBOS.recv<WakeMessage>(NAMES.topic, { deadlineEpochMS });
    // A wake sent for an earlier wait (a watchman that read the old wait, then loaded the
    // session after this end was saved) names no change since this end: going on would load
    // the undecided state and save it over a decision made meanwhile. Wait on for a real one.
    while (message !== null && !wakesWait(message, print ?? undefined)) {
      message = await DBOS.recv<WakeMessage>(NAMES.topic, { deadlineEpochMS });
    }
    snapshot = await dbStep('agate:resume', async () => {
      await pool.query(`DELETE FROM ${SCHEMA}.waits WHERE workflow_id = $1`, [workflowId]);
      // No decision before the deadline: the run ends here.
      if (message === null) await finish(pool, workflowId);
      return loadOrNull(store, request.sessionId);
    });
    if (message === null) return ended(result);
    cancelled = message.kind === 'cancel';
  }
}

async function loadOrNull(store: SessionStore, id: string): Promise<SessionSnapshot | null> {
  return (await store.load(id)) ?? null;
}

/** The run has ended: its cancellation request and its end marks go with it. */
async function finish(pool: pg.Pool, workflowId: string): Promise<void> {
  await clearCancel(pool, workflowId);
  await forgetEnds(pool, workflowId);
}

async function recordWait(
  pool: pg.Pool,
  workflowId: string,
  sessionId: string,
  print: string,
): Promise<void> {
  await pool.query(
    `INSERT INTO ${SCHEMA}.waits (workflow_id, session_id, fingerprint) VALUES ($1, $2, $3)
     ON CONFLICT (workflow_id) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, since = now()`,
    [workflowId, sessionId, print],
  );
}

/** A promise awaited later: its rejection is not "unhandled" in the meantime. */
function background(promise: Promise<void>): Promise<void> {
  promise.catch(() => {});
  return promise;
}
