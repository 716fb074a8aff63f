import { APPROVAL_KEY_ENV } from '@agate/core/internal';
import type { DurableAgents, Worker } from '@agate/dbos';
import { CliError, ExitCode, type ExitCodeValue } from '../errors.js';
import type { CliIo, InterruptSignal } from '../io.js';
import { importOptional } from '../optional-package.js';
import { importUserModule } from '../run/load-agent.js';
import { startTracing } from '../run/tracing.js';
import { isPostgresUrl } from '../sessions/stored-session.js';

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
 * options } }`, or as its default export). Runs until SIGINT or SIGTERM: then no run starts
 * another step here, the steps in flight finish, and its runs go to the other workers.
 *
 * Everything that stops it is one line on stderr, `agate worker: …`, saying what to do, with
 * an exit code from docs/cli.md: 2 for what the user must fix (the agents file, the URL, a
 * database that does not exist, a refused role), 1 when the worker's tables cannot be made.
 */
export async function workerCommand(
  io: CliIo,
  file: string,
  options: WorkerCommandOptions,
  /** Resolves when the worker should stop (default: Ctrl-C or SIGTERM). */
  stopSignal?: Promise<unknown>,
): Promise<number> {
  const fail = (message: string, code: ExitCodeValue): number => {
    io.err(`agate worker: ${message}\n`);
    return code;
  };
  const databaseUrl = options.store ?? nonEmpty(io.env.DATABASE_URL);
  if (databaseUrl === undefined || !isPostgresUrl(databaseUrl)) {
    return fail(
      `needs the runs database: --store postgres://user@host:port/database, or DATABASE_URL${
        databaseUrl === undefined ? '' : ` (got ${JSON.stringify(redact(databaseUrl))})`
      }.`,
      ExitCode.usage,
    );
  }
  const tracing = await startTracing(io.env, io.err);
  try {
    return await runWorker(io, file, databaseUrl, options, stopSignal, fail);
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
  fail: (message: string, code: ExitCodeValue) => number,
): Promise<number> {
  let agents: DurableAgents;
  let dbos: typeof import('@agate/dbos');
  try {
    agents = withApprovalKey(await loadAgents(file), nonEmpty(io.env[APPROVAL_KEY_ENV]));
    dbos = await loadDbos();
  } catch (error) {
    if (CliError.isInstance(error)) return fail(error.message, error.exitCode);
    throw error;
  }
  // Listening before anything starts (and before "running" is printed): a signal that comes
  // while the worker launches stops it as soon as it is up.
  let signal: InterruptSignal | undefined;
  const stop =
    stopSignal ??
    new Promise<void>((resolve) => {
      // A second signal leaves at once (130 / 143), the runs in flight going on elsewhere.
      io.onInterrupt((which) => {
        signal = which;
        resolve();
      });
    });
  let worker: Worker;
  try {
    worker = await dbos.launchWorker({
      databaseUrl,
      agents,
      ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
      ...(options.executorId !== undefined ? { executorId: options.executorId } : {}),
      ...(options.recoveryAfterMs !== undefined
        ? { recoveryAfterMs: options.recoveryAfterMs }
        : {}),
      onEvent: (event) => io.err(`agate worker: ${dbos.describeWorkerEvent(event)}\n`),
    });
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
    if (error instanceof dbos.DatabaseMigrationError) return fail(message, ExitCode.runFailed);
    if (error instanceof dbos.DatabaseUnavailableError || error instanceof dbos.DurableRunError) {
      return fail(message, ExitCode.usage);
    }
    return fail(`could not start: ${message}`, ExitCode.runFailed);
  }
  io.out(
    `agate worker ${worker.executorId}: running ${Object.keys(agents).join(', ')} ` +
      '(Ctrl-C or SIGTERM: the steps in flight finish, then its runs go to other workers)\n',
  );
  await stop;
  io.out(`agate worker ${worker.executorId}: stopping${signal ? ` (${signal})` : ''}\n`);
  const { stepsFinished } = await worker.shutdown();
  io.out(
    `agate worker ${worker.executorId}: stopped; ${
      stepsFinished
        ? 'every step in flight finished'
        : 'a step still running was cut off (it runs again on another worker)'
    }, its runs go on elsewhere\n`,
  );
  // Something an agent opened (a model's socket) must not keep a stopped worker alive.
  if (stopSignal === undefined) setTimeout(() => process.exit(ExitCode.ok), 2_000).unref();
  return ExitCode.ok;
}

async function loadAgents(file: string): Promise<DurableAgents> {
  const module = await importUserModule(file, 'agents file');
  const agents = (module.agents ?? module.default) as DurableAgents | undefined;
  if (
    agents === null ||
    typeof agents !== 'object' ||
    Object.keys(agents).length === 0 ||
    Object.values(agents).some(
      (a) => a === null || typeof a !== 'object' || typeof a.element !== 'function',
    )
  ) {
    throw new CliError(
      `the agents file ${file} must export its agents by name: ` +
        '`export const agents = { reviewer: { element: (input) => <Reviewer {...input} />, options: { model } } }`.',
      ExitCode.usage,
    );
  }
  return agents;
}

/**
 * The key the process's environment held (taken out of it before the agents file loads, so its
 * tools cannot sign their own approvals) goes to the runs, as `agate run` gives it to its run.
 */
function withApprovalKey(agents: DurableAgents, key: string | undefined): DurableAgents {
  if (key === undefined) return agents;
  return Object.fromEntries(
    Object.entries(agents).map(([name, agent]) => [
      name,
      { ...agent, options: { ...agent.options, approvalKey: agent.options.approvalKey ?? key } },
    ]),
  );
}

/** `@agate/dbos` is an optional peer of the CLI: only `agate worker` needs it (and DBOS). */
function loadDbos(): Promise<typeof import('@agate/dbos')> {
  return importOptional(
    '@agate/dbos',
    () => import('@agate/dbos'),
    'run durable runs with agate worker',
  );
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** A connection string without its password, for messages. */
export function redact(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]+):[^@]*@/i, '$1:***@');
}
