import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { SessionStore } from '@agate/core';
import {
  type ConnectionTarget,
  connectionProblem,
  connectionTarget,
  DECISION_CHANNEL,
  describeConnectionProblem,
  firstLine,
} from '@agate/postgres';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { CancelWatch } from './cancellations.js';
import { DatabaseHealth, probeDatabase, type WorkerEvent } from './database-health.js';
import { dbosDatabaseUrl } from './database-url.js';
import { dbosLogger } from './dbos-log.js';
import {
  DatabaseMigrationError,
  DatabaseUnavailableError,
  DurableRunError,
  WorkerRunningError,
} from './errors.js';
import { type Listener, listen } from './listener.js';
import { DEFAULTS, NAMES, type Worker, type WorkerOptions } from './options.js';
import { startWatchman, type Watchman } from './recovery.js';
import { StepGate } from './step-gate.js';
import { storeForDatabase } from './store.js';
import { CANCEL_CHANNEL, ensureTables, resilientPool } from './tables.js';
import { durableRun, setWorkflowHost } from './workflow.js';

let active = false;
let registered = false;

/**
 * Starts this process's worker: it takes runs from the queue (at most `concurrency` at once),
 * recovers its own unfinished runs when it restarts with the same `executorId`, and takes over
 * the runs of workers silent for `recoveryAfterMs`. One worker per process (DBOS's executor is
 * process-wide).
 */
export async function launchWorker(options: WorkerOptions): Promise<Worker> {
  if (active || DBOS.isInitialized()) throw new WorkerRunningError();
  const settings = workerSettings(options);
  const { databaseUrl } = options;
  const emit = options.onEvent ?? printEvent;
  const target = connectionTarget(databaseUrl);
  active = true;
  // One clear failure before anything starts: no such database, nobody there, a refused role.
  await probeDatabase(databaseUrl, 10_000).catch((error: unknown) => {
    active = false;
    throw unavailable(error, target);
  });
  let stopping = false;
  const health = new DatabaseHealth(databaseUrl, (event) => {
    if (!stopping) emit(event);
  });
  const warn = (message: string) => {
    if (!stopping) emit({ type: 'warning', message });
  };
  /** A failure of the worker's own background work: the health's, or one warning line. */
  const failed = (error: unknown) => {
    if (!stopping && !health.suspect(error)) warn(firstLine(error));
  };
  // The store's and Agate's tables on one pool, DBOS's on another: both survive a restart.
  const pool = resilientPool(databaseUrl, settings.concurrency + 4);
  const systemPool = resilientPool(databaseUrl, 10);
  const owned = options.store === undefined ? storeForDatabase(pool) : undefined;
  const store = options.store ?? (owned as SessionStore);
  const gate = new StepGate();
  let stopListening: (() => Promise<void>) | undefined;
  let stopRounds: (() => Promise<void>) | undefined;
  try {
    const cancels = new CancelWatch(pool);
    setWorkflowHost({
      agents: options.agents,
      store,
      pool,
      approvalTimeoutMs: settings.approvalTimeoutMs,
      cancels,
      gate,
      // Saves share a step's transaction only on the store the worker made on the run database.
      stepLog: { pool, ...(owned !== undefined ? { store: owned } : {}) },
    });
    DBOS.setConfig({
      name: NAMES.app,
      systemDatabaseUrl: dbosDatabaseUrl(databaseUrl),
      systemDatabasePool: systemPool,
      applicationVersion: options.applicationVersion ?? DEFAULTS.applicationVersion,
      executorID: settings.executorId,
      // DBOS's lines through the worker: a lost database is said twice, not every second.
      logger: dbosLogger({
        health,
        warn,
        level: options.logLevel ?? 'warn',
        quiet: () => stopping,
      }),
    });
    await launchDbos(pool, target, owned);
    const watchman = startWatchman({
      databaseUrl,
      pool,
      store,
      executorId: settings.executorId,
      recoveryAfterMs: settings.recoveryAfterMs,
      decisionPollMs: settings.decisionPollMs,
      onError: failed,
    });
    stopRounds = () => watchman.stopRounds();
    const listener = listenToOthers(databaseUrl, watchman, cancels, failed);
    stopListening = () => listener.stop();
    await DBOS.registerQueue(NAMES.queue, {
      workerConcurrency: settings.concurrency,
      onConflict: 'always_update',
    });
    await watchman.round();
    let closing: Promise<{ stepsFinished: boolean }> | undefined;
    return {
      executorId: settings.executorId,
      shutdown({ graceMs = DEFAULTS.shutdownGraceMs } = {}) {
        closing ??= (async () => {
          // No new step starts here; the ones in flight record their answers.
          const stepsFinished = await gate.close(graceMs);
          stopping = true;
          await listener.stop();
          await watchman.stopRounds();
          // Nothing of this process records anything after this; its runs stay pending.
          await DBOS.shutdown({ deregister: true });
          registered = false;
          await watchman.leave({ handOver: true });
          await health.stop();
          setWorkflowHost(undefined);
          await pool.end();
          await systemPool.end();
          active = false;
          return { stepsFinished };
        })();
        return closing;
      },
    };
  } catch (error) {
    stopping = true;
    await stopListening?.();
    await stopRounds?.();
    await health.stop();
    setWorkflowHost(undefined);
    if (DBOS.isInitialized()) {
      await DBOS.shutdown({ deregister: true }).catch(() => {});
      registered = false;
    }
    await pool.end().catch(() => {});
    await systemPool.end().catch(() => {});
    active = false;
    throw error;
  }
}

/** What other processes tell the workers at once: a decision saved, a run cancelled. */
function listenToOthers(
  databaseUrl: string,
  watchman: Watchman,
  cancels: CancelWatch,
  onError: (error: unknown) => void,
): Listener {
  return listen({
    databaseUrl,
    channels: {
      [DECISION_CHANNEL]: (sessionId) => watchman.wakeSession(sessionId),
      [CANCEL_CHANNEL]: (workflowId) => cancels.heard(workflowId),
    },
    onConnected: () => {
      cancels.connected().catch(() => cancels.disconnected());
    },
    onDisconnected: () => cancels.disconnected(),
    onError,
  });
}

/** The worker's numbers, checked, with their defaults; and its executor id. */
function workerSettings(options: WorkerOptions) {
  const n = (key: 'concurrency' | 'recoveryAfterMs' | 'approvalTimeoutMs' | 'decisionPollMs') =>
    positiveInteger(options[key], DEFAULTS[key], key);
  const numbers = {
    concurrency: n('concurrency'),
    recoveryAfterMs: n('recoveryAfterMs'),
    approvalTimeoutMs: n('approvalTimeoutMs'),
    decisionPollMs: n('decisionPollMs'),
  };
  if (Object.keys(options.agents).length === 0) {
    throw new DurableRunError('launchWorker needs at least one agent in `agents`.');
  }
  const executorId =
    options.executorId ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  return { ...numbers, executorId };
}

/**
 * Registers the workflow (once per process until a shutdown clears DBOS's registry; a failed
 * launch keeps it) and launches DBOS, migrating DBOS's system tables, the store's and Agate's
 * one process at a time: DBOS's own migrations deadlock when a worker and a client start
 * together on a new database.
 */
async function launchDbos(
  pool: ReturnType<typeof resilientPool>,
  target: ConnectionTarget,
  owned: { migrate(): Promise<unknown> } | undefined,
): Promise<void> {
  if (!registered) {
    DBOS.registerWorkflow(durableRun, { name: NAMES.workflow, maxRecoveryAttempts: 1_000 });
    registered = true;
  }
  await ensureTables(pool, async () => {
    await owned?.migrate();
    await DBOS.launch();
  }).catch((error: unknown) => {
    if (connectionProblem(error) !== undefined) throw unavailable(error, target);
    if (!mayNotCreate(error)) throw error;
    throw new DatabaseMigrationError(
      `could not create the worker's tables in database "${target.database}" as role ` +
        `"${target.user}": ${firstLine(error)}. Run the worker as the database's owner, or ` +
        `let the role create them: GRANT CREATE ON DATABASE "${target.database}" TO "${target.user}".`,
      { cause: error },
    );
  });
}

/** A role without the right to create what the worker needs (SQLSTATE 42501). */
function mayNotCreate(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e != null && depth < 5; depth++) {
    if ((e as { code?: unknown }).code === '42501') return true;
    if (/permission denied/i.test(String((e as { message?: unknown }).message ?? ''))) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** The worker's failure to reach its database, as the typed error that says what to do. */
function unavailable(error: unknown, target: ConnectionTarget): Error {
  const problem = connectionProblem(error);
  if (problem === undefined) {
    return new DurableRunError(
      `could not connect to ${target.url}: ${firstLine(error)}. Check the URL.`,
      { cause: error },
    );
  }
  return new DatabaseUnavailableError(problem, describeConnectionProblem(problem, target, error), {
    cause: error,
  });
}

/** The default `onEvent`: one line on stderr each. */
function printEvent(event: WorkerEvent): void {
  process.stderr.write(`agate worker: ${describeWorkerEvent(event)}\n`);
}

/** One line for a worker event (what `agate worker` prints). */
export function describeWorkerEvent(event: WorkerEvent): string {
  switch (event.type) {
    case 'database-down':
      return `lost the database (${event.error}); runs wait and retry until it is back`;
    case 'database-up':
      return `the database is back after ${(event.downForMs / 1000).toFixed(1)} s; runs go on`;
    case 'warning':
      return event.message;
  }
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new DurableRunError(`${name} must be a whole number >= 1, got ${String(value)}.`);
  }
  return value;
}
