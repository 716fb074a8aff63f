// A worker process for the kill matrix: `tsx --conditions=@agate/source matrix-worker.ts`.
// It parks each run at the point its session id names (once: a marker file says it happened)
// and prints `parked <session>`; the test then SIGKILLs the process. Prints "ready" once it
// takes runs. Every point a run passes is appended to steps.log.
import { appendFileSync, closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { launchWorker } from '../index.js';
import { setStepProbe } from '../step-probe.js';
import { killPointOf, sessionOfRun } from './kill-matrix.js';
import { matrixAgent } from './matrix-agent.js';

const dir = process.env.AGATE_TEST_LOG_DIR as string;

setStepProbe(({ workflowId, step, index, phase }) => {
  const session = sessionOfRun(workflowId);
  appendFileSync(join(dir, 'steps.log'), `${session} ${index} ${step} ${phase} ${process.pid}\n`);
  const point = killPointOf(session);
  if (point?.index !== index || point.phase !== phase) return;
  try {
    // Exclusive create: only the first process to reach the point parks there.
    closeSync(openSync(join(dir, `parked-${session}`), 'wx'));
  } catch {
    return;
  }
  process.stdout.write(`parked ${session}\n`);
  return new Promise<void>(() => {});
});

await launchWorker({
  databaseUrl: process.env.DATABASE_URL as string,
  agents: { matrix: matrixAgent(dir) },
  executorId: process.env.AGATE_TEST_EXECUTOR_ID as string,
  concurrency: 100,
  recoveryAfterMs: 600_000,
  decisionPollMs: 200,
});
process.stdout.write('ready\n');
