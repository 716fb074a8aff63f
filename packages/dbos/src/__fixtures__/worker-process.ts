// A worker process for the fault tests: `tsx --conditions=@agate/source worker-process.ts`.
// Configured by environment variables; prints "ready" once it takes runs; SIGTERM shuts it down.
import { launchWorker } from '../index.js';
import { countingAgents } from './counting-agent.js';

const env = (name: string): string | undefined => process.env[name];
const logDir = env('AGATE_TEST_LOG_DIR') as string;
const worker = await launchWorker({
  databaseUrl: env('DATABASE_URL') as string,
  agents: countingAgents(logDir, Number(env('AGATE_TEST_DELAY_MS') ?? 40)),
  concurrency: Number(env('AGATE_TEST_CONCURRENCY') ?? 4),
  recoveryAfterMs: Number(env('AGATE_TEST_RECOVERY_MS') ?? 30_000),
  ...(env('AGATE_TEST_EXECUTOR_ID') ? { executorId: env('AGATE_TEST_EXECUTOR_ID') } : {}),
});
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  void worker.shutdown().then(() => process.exit(0));
});
