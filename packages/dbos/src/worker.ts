import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { SessionStore } from '@agate/core';
import { DECISION_CHANNEL } from '@agate/postgres';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { CancelWatch } from './cancellations.js';
import { DurableRunError, WorkerRunningError } from './errors.js';
import { listen } from './listener.js';
import { DEFAULTS, NAMES, type Worker, type WorkerOptions } from './options.js';
import { startWatchman } from './recovery.js';
import { storeForDatabase } from './store.js';
import { CANCEL_CHANNEL, ensureTables, resilientPool } from './tables.js';
import { durableRun, setWorkflowHost } from './workflow.js';

let active = false;

/**
 * Starts this process's worker: it takes runs from the queue (at most `concurrency` at once),
 * recovers its own unfinished runs when it restarts with the same `executorId`, and takes over
 * the runs of workers silent for `recoveryAfterMs`. One worker per process (DBOS's executor is
 * process-wide).
 */
export async function launchWorker(options: WorkerOptions): Promise<Worker> {
  if (active || DBOS.isInitialized()) throw new WorkerRunningError();
  const concurrency = positiveInteger(options.concurrency, DEFAULTS.concurrency, 'concurrency');
  const recoveryAfterMs = positiveInteger(
    options.recoveryAfterMs,
    DEFAULTS.recoveryAfterMs,
    'recoveryAfterMs',
  );
  const approvalTimeoutMs = positiveInteger(
    options.approvalTimeoutMs,
    DEFAULTS.approvalTimeoutMs,
    'approvalTimeoutMs',
  );
  const decisionPollMs = positiveInteger(
    options.decisionPollMs,
    DEFAULTS.decisionPollMs,
    'decisionPollMs',
  );
  if (Object.keys(options.agents).length === 0) {
    throw new DurableRunError('launchWorker needs at least one agent in `agents`.');
  }
  const executorId =
    options.executorId ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  active = true;
  // The store's and Agate's tables on one pool, DBOS's on another: both survive a restart.
  const pool = resilientPool(options.databaseUrl, concurrency + 4);
  const systemPool = resilientPool(options.databaseUrl, 10);
  const owned = options.store === undefined ? storeForDatabase(pool) : undefined;
  const store = options.store ?? (owned as SessionStore);
  let stopListening: (() => Promise<void>) | undefined;
  try {
    // DBOS's system tables, the store's and ours, one process at a time: DBOS's own migrations
    // deadlock when a worker and a client start together on a new database.
    await ensureTables(pool, async () => {
      await DBOS.migrate(options.databaseUrl);
      await owned?.migrate();
    });
    const cancels = new CancelWatch(pool);
    setWorkflowHost({ agents: options.agents, store, pool, approvalTimeoutMs, cancels });
    DBOS.setConfig({
      name: NAMES.app,
      systemDatabaseUrl: options.databaseUrl,
      systemDatabasePool: systemPool,
      applicationVersion: options.applicationVersion ?? DEFAULTS.applicationVersion,
      executorID: executorId,
      logLevel: options.logLevel ?? 'warn',
      runMigrations: false,
    });
    DBOS.registerWorkflow(durableRun, { name: NAMES.workflow, maxRecoveryAttempts: 1_000 });
    const watchman = startWatchman({
      databaseUrl: options.databaseUrl,
      pool,
      store,
      executorId,
      recoveryAfterMs,
      decisionPollMs,
      onError: () => {},
    });
    // What other processes tell the workers at once: a decision saved, a run cancelled.
    const listener = listen({
      databaseUrl: options.databaseUrl,
      channels: {
        [DECISION_CHANNEL]: (sessionId) => watchman.wakeSession(sessionId),
        [CANCEL_CHANNEL]: (workflowId) => cancels.heard(workflowId),
      },
      onConnected: () => {
        cancels.connected().catch(() => cancels.disconnected());
      },
      onDisconnected: () => cancels.disconnected(),
      onError: () => {},
    });
    stopListening = () => listener.stop();
    await DBOS.launch();
    await DBOS.registerQueue(NAMES.queue, {
      workerConcurrency: concurrency,
      onConflict: 'always_update',
    });
    await watchman.round();
    let closing: Promise<void> | undefined;
    return {
      executorId,
      shutdown() {
        closing ??= (async () => {
          await listener.stop();
          await watchman.stop({ handOver: true });
          await DBOS.shutdown({ deregister: true });
          setWorkflowHost(undefined);
          await pool.end();
          await systemPool.end();
          active = false;
        })();
        return closing;
      },
    };
  } catch (error) {
    await stopListening?.();
    setWorkflowHost(undefined);
    if (DBOS.isInitialized()) await DBOS.shutdown({ deregister: true }).catch(() => {});
    await pool.end().catch(() => {});
    await systemPool.end().catch(() => {});
    active = false;
    throw error;
  }
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new DurableRunError(`${name} must be a whole number >= 1, got ${String(value)}.`);
  }
  return value;
}
