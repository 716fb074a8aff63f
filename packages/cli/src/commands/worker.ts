import type { DurableAgents } from '@agate/dbos';
import { CliError, ExitCode } from '../errors.js';
import type { CliIo } from '../io.js';
import { importOptional } from '../optional-package.js';
import { importUserModule } from '../run/load-agent.js';
import { startTracing } from '../run/tracing.js';

export interface WorkerCommandOptions {
  store?: string;
  concurrency?: number;
  executorId?: string;
  recoveryAfterMs?: number;
}

/**
 * `agate worker <agents-file> --store postgres://…`: a durable-run worker (docs/durable.md),
 * traced like `agate run` when the environment names an OpenTelemetry exporter.
 * The agents file exports the agents by name (`export const agents = { name: { element,
 * options } }`, or as its default export). Runs until SIGINT or SIGTERM, then hands its runs
 * in flight to the other workers.
 */
export async function workerCommand(
  io: CliIo,
  file: string,
  options: WorkerCommandOptions,
  /** Resolves when the worker should stop (default: Ctrl-C or SIGTERM). */
  stopSignal?: Promise<unknown>,
): Promise<number> {
  const databaseUrl = options.store;
  if (databaseUrl === undefined || !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new CliError(
      'agate worker needs --store postgres://user@host:port/database (the database the runs live in).',
      ExitCode.usage,
    );
  }
  const tracing = await startTracing(io.env, io.err);
  try {
    return await runWorker(io, file, databaseUrl, options, stopSignal);
  } finally {
    await tracing?.shutdown();
  }
}

async function runWorker(
  io: CliIo,
  file: string,
  databaseUrl: string,
  options: WorkerCommandOptions,
  stopSignal: Promise<unknown> | undefined,
): Promise<number> {
  const module = await importUserModule(file, 'agents file');
  const agents = (module.agents ?? module.default) as DurableAgents | undefined;
  if (
    agents === null ||
    typeof agents !== 'object' ||
    Object.values(agents).some(
      (a) => a === null || typeof a !== 'object' || typeof a.element !== 'function',
    )
  ) {
    throw new CliError(
      `The agents file ${file} must export its agents by name: ` +
        '`export const agents = { reviewer: { element: (input) => <Reviewer {...input} />, options: { model } } }`.',
      ExitCode.usage,
    );
  }
  const { launchWorker } = await loadDbos();
  const worker = await launchWorker({
    databaseUrl,
    agents,
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.executorId !== undefined ? { executorId: options.executorId } : {}),
    ...(options.recoveryAfterMs !== undefined ? { recoveryAfterMs: options.recoveryAfterMs } : {}),
  });
  io.out(
    `agate worker ${worker.executorId}: running ${Object.keys(agents).join(', ')} ` +
      `(Ctrl-C hands its runs in flight to other workers)\n`,
  );
  await (stopSignal ??
    new Promise<void>((resolve) => {
      const off = io.onInterrupt(() => {
        off();
        resolve();
      });
    }));
  await worker.shutdown();
  io.out(`agate worker ${worker.executorId}: stopped\n`);
  return ExitCode.ok;
}

/** `@agate/dbos` is an optional peer of the CLI: only `agate worker` needs it (and DBOS). */
function loadDbos(): Promise<typeof import('@agate/dbos')> {
  return importOptional(
    '@agate/dbos',
    () => import('@agate/dbos'),
    'run durable runs with agate worker',
  );
}
