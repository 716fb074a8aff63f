// One worker process of the scale bench (started by measure.ts): `node --import tsx worker.ts`
// (Agate's built dist/, as users run it), configured by environment variables. Prints "ready" once it takes runs; SIGTERM
// stops it.
import { join } from 'node:path';
import { launchWorker } from '@agate/dbos';
import { scaleAgents } from './agent.js';

const env = (name: string) => process.env[name] as string;
const worker = await launchWorker({
  databaseUrl: env('DATABASE_URL'),
  agents: scaleAgents(join(env('SCALE_LOG_DIR'), `tools-${process.pid}.log`)),
  executorId: env('SCALE_EXECUTOR_ID'),
  concurrency: Number(env('SCALE_CONCURRENCY')),
  recoveryAfterMs: Number(env('SCALE_RECOVERY_MS')),
  logLevel: 'error',
});
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  void worker.shutdown({ graceMs: 2_000 }).then(() => process.exit(0));
});
