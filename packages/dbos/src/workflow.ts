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
import type pg from 'pg';
import type { CancelWatch } from './cancellations.js';
import { deferredStore } from './deferred-store.js';
import { forgetEnds, saveEnd, wakesWait } from './end-save.js';
import { UnknownAgentError } from './errors.js';
import {
  type DurableAgents,
  type DurableRunResult,
  NAMES,
  type RunRequest,
  type WakeMessage,
} from './options.js';
import { toDurableResult } from './result.js';
import { checkRunRequest } from './run-request.js';
import { createRunSteps, type RunSteps } from './run-steps.js';
import type { StepGate } from './step-gate.js';
import { loadSteps, type StepLog } from './step-log.js';
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
  const { store, pool, cancels } = worker;
  /** Known from the listener when it is up; else asked of the table (retried while down). */
  const isCancelled = async () => cancels.known(workflowId) ?? cancelRequested(pool, workflowId);
  const steps = createRunSteps({
    workflowId,
    // Every answer this run recorded in earlier executions (none on its first): one read.
    recorded: await loadSteps(pool, workflowId),
    gate: worker.gate,
    stepLog: worker.stepLog,
    isCancelled,
  });
  const run: Run = { worker, workflowId, request, agent, steps, saving: undefined };

  const start = await steps.db('agate:start', async () => ({
    cancelled: await isCancelled(),
    snapshot: await loadOrNull(store, request.sessionId),
  }));
  let snapshot: SessionSnapshot | null = start.snapshot;
  let cancelled = start.cancelled;
  let ticks = 0;
  /** The run's result; its cancellation request (if any) left the table in its last step. */
  const ended = (result: RunResult): DurableRunResult => {
    cancels.forget(workflowId);
    return toDurableResult(result, ticks);
  };

  // Rounds of the run: one session run each, between a start or a decision and an end.
  for (let round = 0; ; round++) {
    const { result, end } = await runRound(run, snapshot, cancelled);
    ticks += result.ticks;
    const waiting = result.status === 'awaiting-approval';
    // The end's fingerprint, when the run waits (runs recorded before it was returned: null).
    const print = await steps.db('agate:end', async (): Promise<string | null> => {
      await saved(run);
      const endPrint = await saveEnd(pool, store, workflowId, round, end);
      if (!waiting) {
        await finish(pool, workflowId);
        return null;
      }
      await recordWait(pool, workflowId, request.sessionId, endPrint);
      return endPrint;
    });
    if (!waiting) return ended(result);

    const message = await waitForDecision(worker.approvalTimeoutMs, print ?? undefined);
    snapshot = await steps.db('agate:resume', async () => {
      await pool.query(`DELETE FROM ${SCHEMA}.waits WHERE workflow_id = $1`, [workflowId]);
      // No decision before the deadline: the run ends here.
      if (message === null) await finish(pool, workflowId);
      return loadOrNull(store, request.sessionId);
    });
    if (message === null) return ended(result);
    cancelled = message.kind === 'cancel';
  }
}

/** What one execution of a durable run carries from round to round. */
interface Run {
  worker: WorkflowHost;
  workflowId: string;
  request: RunRequest;
  agent: DurableAgents[string];
  steps: RunSteps;
  /** The tick-end save in flight, if any (only live steps start one; a replay starts none). */
  saving: Promise<void> | undefined;
}

/** Waits for the tick-end save in flight, if any. */
async function saved(run: Run): Promise<void> {
  const pending = run.saving;
  run.saving = undefined;
  await pending;
}

/** One session run from `snapshot`: its model and tool calls as the run's steps. */
async function runRound(
  run: Run,
  snapshot: SessionSnapshot | null,
  cancelled: boolean,
): Promise<{ result: RunResult; end: SessionSnapshot }> {
  const { worker, steps, request, agent } = run;
  const { store, stepLog } = worker;
  const controller = new AbortController();
  if (cancelled) controller.abort(new RunCancelledError());
  const deferred = deferredStore(store);
  let session: Session | undefined;
  const stop = (): never => {
    controller.abort(new RunCancelledError());
    throw controller.signal.reason;
  };
  const sessionSteps: DurableSteps = {
    // The state before this tick's model call is the last tick's end: saved with this step.
    model: async (call) => {
      const out = await steps.checked(
        'agate:model',
        async () => {
          await saved(run);
          if (session === undefined) return;
          // Shares the frozen state (no copy): the save costs what the tick added.
          const tickEnd = createSnapshot(session.id, session.state, undefined, {
            shareFrozen: true,
          });
          // On the run database's own store, saved in the transaction that records this
          // step's answer (one commit for both); on another store, beside the call.
          if (stepLog.store !== undefined) steps.fold(tickEnd);
          else run.saving = background(store.save(tickEnd));
        },
        call,
      );
      return out.cancelled ? stop() : out.value;
    },
    tool: async (call) => {
      const out = await steps.checked(
        'agate:tool',
        async () => {
          await saved(run);
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
    steps: sessionSteps,
  });
  let result: RunResult;
  try {
    result = await session.run({ ...request.runOptions, signal: controller.signal });
  } finally {
    session.dispose();
  }
  const lost = steps.lost();
  if (lost !== undefined) throw lost;
  return { result, end: session.snapshot() };
}

/**
 * Waits inside the workflow for a decision (no process is needed meanwhile, and a restart
 * waits again): the wake message, or null at the deadline. A wake sent for an earlier wait (a
 * watchman that read the old wait, then loaded the session after this end was saved) names no
 * change since this end: going on would load the undecided state and save it over a decision
 * made meanwhile, so the run waits on for a real one.
 */
async function waitForDecision(
  timeoutMs: number,
  print: string | undefined,
): Promise<WakeMessage | null> {
  const deadlineEpochMS = (await DBOS.now()) + timeoutMs;
  for (;;) {
    const message = await DBOS.recv<WakeMessage>(NAMES.topic, { deadlineEpochMS });
    if (message === null || wakesWait(message, print)) return message;
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
