export { createClient } from './client.js';
export {
  DurableRunError,
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
export { launchWorker } from './worker.js';
export { RunCancelledError } from './workflow.js';
