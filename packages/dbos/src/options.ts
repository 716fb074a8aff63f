import type {
  JsonValue,
  RunOptions,
  RunResult,
  RunStatus,
  SessionOptions,
  SessionStore,
} from '@agate/core';
import type { ReactNode } from 'react';
import type { WorkerEvent } from './database-health.js';

/** Session options a worker sets itself for every durable run. */
type WorkerOwned = 'store' | 'snapshot' | 'id' | 'signal' | 'steps' | 'state';

/** One agent a worker can run: its tree for an input, and its session options. */
export interface DurableAgent<I = JsonValue> {
  element: (input: I) => ReactNode;
  options: Omit<SessionOptions, WorkerOwned>;
}

// biome-ignore lint/suspicious/noExplicitAny: agents take inputs of their own types.
export type DurableAgents = Record<string, DurableAgent<any>>;

export interface WorkerOptions {
  /** PostgreSQL connection string: DBOS's system tables, the session store and Agate's tables. */
  databaseUrl: string;
  /** The agents this worker runs, by the name `startRun({ agent })` gives. */
  agents: DurableAgents;
  /** Runs this worker executes at once (default 4). */
  concurrency?: number;
  /**
   * This worker's DBOS executor id. Unique per live process. A process restarted with the same
   * id recovers its own unfinished runs at once (DBOS); with a fresh id (the default: host, pid
   * and a random part) a dead worker's runs are taken over after `recoveryAfterMs`.
   */
  executorId?: string;
  /** A worker silent this long is dead and its runs go to a live worker (default 30,000 ms). */
  recoveryAfterMs?: number;
  /** How long a run waits for a checkpoint decision before it ends `awaiting-approval` (default 24 h). */
  approvalTimeoutMs?: number;
  /**
   * A decision saved to the PostgreSQL store wakes its waiting run at once (the save notifies,
   * every worker listens). This is how often a worker also looks for decisions it did not hear
   * of (its listening connection was down, or a store that does not notify): default 1,000 ms.
   */
  decisionPollMs?: number;
  /**
   * DBOS's application version, pinned (default `agate-2`): runs are recovered only by workers
   * of the same version. Change it when an agent changes in a way that would replay its recorded
   * steps differently (docs/durable.md, "Upgrades").
   */
  applicationVersion?: string;
  /** A store other than the PostgreSQL store on `databaseUrl` (advanced; every worker must share it). */
  store?: SessionStore;
  /** DBOS's log level (default `warn`): lines below it are dropped. */
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /**
   * What the worker has to say while it runs: the database gone (once) and back (once), and
   * DBOS's other warnings, one line each. Default: each printed as one line on stderr.
   */
  onEvent?: (event: WorkerEvent) => void;
}

export interface Worker {
  readonly executorId: string;
  /**
   * Stops: no run here starts another step, the steps in flight end and record their answers
   * (up to `graceMs`, default 10,000 ms; a step still running then is cut off with the process
   * and runs again elsewhere), and the worker leaves: live workers take its runs at their next
   * round, and a waiting run waits on in the database. Resolves to whether every step in flight
   * ended within the grace.
   */
  shutdown(options?: { graceMs?: number }): Promise<{ stepsFinished: boolean }>;
}

export interface ClientOptions {
  databaseUrl: string;
  /** Must match the workers' (default `agate-2`). */
  applicationVersion?: string;
}

/** The JSON-safe part of `RunOptions` a durable run accepts. */
export type DurableRunOptions = Pick<RunOptions, 'maxTicks' | 'context'>;

export interface StartRunInput {
  agent: string;
  sessionId: string;
  input?: JsonValue;
  runOptions?: DurableRunOptions;
}

/**
 * A durable run's state: `queued` (no worker has it yet), `running` (a worker executes it or it
 * waits for a decision, or for a worker after a crash), or the run's own end status.
 */
export type DurableRunStatus = 'queued' | 'running' | RunStatus;

/** `RunResult` as it is stored: plain JSON (the error as name and message). */
export type DurableRunResult = Omit<RunResult, 'error'> & {
  error?: { name: string; message: string; tick?: number; step?: string };
};

export interface RunHandle {
  readonly sessionId: string;
  /** DBOS's workflow id of this run. */
  readonly runId: string;
  status(): Promise<DurableRunStatus>;
  /** Waits for the run to end (on any worker) and returns its result. */
  result(options?: { timeoutMs?: number }): Promise<DurableRunResult>;
}

export interface Client {
  startRun(input: StartRunInput): Promise<RunHandle>;
  /** The session's latest run. Throws `RunNotFoundError` when it has none. */
  getRun(sessionId: string): Promise<RunHandle>;
  /** Aborts the session's run at its next step boundary (status `aborted`, state saved). */
  cancelRun(sessionId: string): Promise<void>;
  close(): Promise<void>;
}

/** The workflow's argument: everything a worker needs to run (or recover) the run. */
export interface RunRequest {
  agent: string;
  sessionId: string;
  input: JsonValue;
  runOptions?: DurableRunOptions;
}

export const DEFAULTS = {
  concurrency: 4,
  recoveryAfterMs: 30_000,
  approvalTimeoutMs: 24 * 60 * 60 * 1000,
  decisionPollMs: 1_000,
  applicationVersion: 'agate-2',
  shutdownGraceMs: 10_000,
} as const;

/** DBOS names: the application, the queue and the workflow. */
export const NAMES = {
  app: 'agate',
  queue: 'agate-runs',
  workflow: 'agate-run',
  topic: 'agate',
} as const;

/** Message a run waiting for a decision receives. */
export type WakeMessage = { kind: 'changed'; fingerprint: string } | { kind: 'cancel' };

/** `agate/<session>/<unique>`: runs of one session share a prefix, newest found by creation time. */
export function runIdPrefix(sessionId: string): string {
  return `agate/${sessionId}/`;
}
