export { createClient } from './client.js';
export type { WorkerEvent } from './database-health.js';
export {
  DatabaseMigrationError,
  DatabaseUnavailableError,
  DurableRunError,
  InvalidRunRequestError,
  RunActiveError,
  RunNotFoundError,
  UnknownAgentError,
  WorkerRunningError,
} from './errors.js';
export type {
  Client,
  ClientOptions,
  DurableAgent,
  DurableAgents,
  DurableRunOptions,
  DurableRunResult,
  DurableRunStatus,
  RunHandle,
  StartRunInput,
  Worker,
  WorkerOptions,
} from './options.js';
export { prepareDatabase } from './prepare.js';
export { RUN_REQUEST_LIMITS } from './run-request.js';
export { describeWorkerEvent, launchWorker } from './worker.js';
export { RunCancelledError } from './workflow.js';
