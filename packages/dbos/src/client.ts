import { randomUUID } from 'node:crypto';
import { assertValidSessionId } from '@agate/core/stores';
import { DBOS, DBOSClient, type WorkflowStatus } from '@dbos-inc/dbos-sdk';
import type pg from 'pg';
import { dbosDatabaseUrl } from './database-url.js';
import { DurableRunError, RunActiveError, RunNotFoundError } from './errors.js';
import {
  type Client,
  type ClientOptions,
  DEFAULTS,
  type DurableRunResult,
  type DurableRunStatus,
  NAMES,
  type RunHandle,
  type RunRequest,
  runIdPrefix,
  type StartRunInput,
  type WakeMessage,
} from './options.js';
import { checkRunRequest } from './run-request.js';
import { ensureTables, requestCancel, resilientPool, SCHEMA } from './tables.js';

/**
 * Starts, inspects and cancels durable runs from any process (a web server, a script): no
 * worker needs to run here. Runs go onto the DBOS queue that `launchWorker` processes serve.
 */
export async function createClient(options: ClientOptions): Promise<Client> {
  const { databaseUrl } = options;
  const appVersion = options.applicationVersion ?? DEFAULTS.applicationVersion;
  // DBOS's system tables and ours exist before the first enqueue, even with no worker yet
  // (under the lock workers take too: DBOS's migrations deadlock when run concurrently).
  const pool = resilientPool(databaseUrl, 2);
  await ensureTables(pool, () => DBOS.migrate(dbosDatabaseUrl(databaseUrl)));
  // DBOS's connections on a pool of ours, as the worker's are: a connection the server cuts
  // while idle (a restart) is dropped without a word, where DBOS's own pool would print
  // "Unexpected error in pool" and query each new connection while it is being handed over.
  const systemPool = resilientPool(databaseUrl, 10);
  const dbos = await DBOSClient.create({
    systemDatabaseUrl: dbosDatabaseUrl(databaseUrl),
    systemDatabasePool: systemPool,
    applicationName: NAMES.app,
  });

  const latest = async (sessionId: string): Promise<WorkflowStatus | undefined> => {
    assertValidSessionId(sessionId);
    const [found] = await dbos.listWorkflows({
      workflow_id_prefix: runIdPrefix(sessionId),
      sortDesc: true,
      limit: 1,
      loadInput: false,
      loadOutput: false,
    });
    return found;
  };

  const handle = (sessionId: string, runId: string) => runHandle(dbos, pool, sessionId, runId);

  return {
    async startRun({ agent, sessionId, input = null, runOptions }: StartRunInput) {
      assertValidSessionId(sessionId);
      // The same check the worker makes, here so that the caller hears of a bad request at once.
      checkRunRequest({
        agent,
        sessionId,
        input,
        ...(runOptions !== undefined ? { runOptions } : {}),
      });
      const previous = await latest(sessionId);
      if (previous !== undefined && isActive(previous.status)) {
        throw new RunActiveError(sessionId, previous.status);
      }
      const runId = `${runIdPrefix(sessionId)}${Date.now().toString(36)}-${randomUUID().slice(0, 8)}`;
      const request: RunRequest = {
        agent,
        sessionId,
        input,
        ...(runOptions !== undefined ? { runOptions } : {}),
      };
      try {
        await dbos.enqueue(
          {
            queueName: NAMES.queue,
            workflowName: NAMES.workflow,
            workflowID: runId,
            appVersion,
            // Two startRun calls racing for one session: the database lets one in.
            deduplicationID: sessionId,
            // Plain JSON (DBOS's portable format) for the request and the run's result, which
            // holds the whole timeline: DBOS's default (superjson, then a walk of the value for
            // functions) cost more worker CPU than the run's saves. Each row names its format,
            // so runs enqueued before read as they were written.
            serializationType: 'portable',
          },
          request,
        );
      } catch (error) {
        if ((error as Error).name === 'DBOSQueueDuplicatedError') {
          throw new RunActiveError(sessionId, 'ENQUEUED');
        }
        throw error;
      }
      return handle(sessionId, runId);
    },
    async getRun(sessionId) {
      const found = await latest(sessionId);
      if (found === undefined) throw new RunNotFoundError(sessionId);
      return handle(sessionId, found.workflowID);
    },
    async cancelRun(sessionId) {
      const found = await latest(sessionId);
      if (found === undefined) throw new RunNotFoundError(sessionId);
      if (!isActive(found.status)) return;
      await requestCancel(pool, found.workflowID);
      // Wakes a run waiting for a decision; a running one sees the request at its next step.
      const message: WakeMessage = { kind: 'cancel' };
      await dbos.send(found.workflowID, message, NAMES.topic, `${found.workflowID}:cancel`);
    },
    async close() {
      await dbos.destroy();
      await systemPool.end();
      await pool.end();
    },
  };
}

/** A run's handle: its status and its result, asked of DBOS. */
function runHandle(dbos: DBOSClient, pool: pg.Pool, sessionId: string, runId: string): RunHandle {
  return {
    sessionId,
    runId,
    async status() {
      const found = await dbos.getWorkflow(runId);
      if (found === undefined) throw new RunNotFoundError(sessionId);
      return statusOf(found, pool);
    },
    async result({ timeoutMs } = {}) {
      const waiting = dbos.retrieveWorkflow<DurableRunResult>(runId).getResult({
        pollingIntervalMs: 200,
      });
      if (timeoutMs === undefined) return waiting;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new DurableRunError(
                `Run ${runId} did not end within ${timeoutMs} ms; it goes on (check status(), or wait longer).`,
              ),
            ),
          timeoutMs,
        );
      });
      try {
        return await Promise.race([waiting, late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

function isActive(status: string): boolean {
  return status === 'ENQUEUED' || status === 'PENDING' || status === 'DELAYED';
}

async function statusOf(found: WorkflowStatus, pool: pg.Pool): Promise<DurableRunStatus> {
  switch (found.status) {
    case 'ENQUEUED':
    case 'DELAYED':
      return 'queued';
    case 'PENDING': {
      const { rowCount } = await pool.query(
        `SELECT 1 FROM ${SCHEMA}.waits WHERE workflow_id = $1`,
        [found.workflowID],
      );
      return (rowCount ?? 0) > 0 ? 'awaiting-approval' : 'running';
    }
    case 'SUCCESS':
      return (found.output as DurableRunResult | undefined)?.status ?? 'completed';
    case 'CANCELLED':
      return 'aborted';
    default:
      return 'error';
  }
}
