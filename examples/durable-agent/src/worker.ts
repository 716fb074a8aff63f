// One worker process: `DATABASE_URL=postgres://… pnpm worker` (or `agate worker src/agents.tsx --store $DATABASE_URL`).
import { launchWorker } from '@agate/dbos';
import { agents } from './agents.js';

const databaseUrl = process.env.DATABASE_URL;
if (databaseUrl === undefined) throw new Error('Set DATABASE_URL=postgres://user@host:port/db');
const worker = await launchWorker({ databaseUrl, agents, recoveryAfterMs: 3_000 });
process.stdout.write(`worker ${worker.executorId} (process ${process.pid}) ready\n`);
process.once('SIGTERM', () => void worker.shutdown().then(() => process.exit(0)));
process.once('SIGINT', () => void worker.shutdown().then(() => process.exit(0)));
