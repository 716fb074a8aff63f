import type { Command } from 'commander';
import { WORKER_ENVIRONMENT } from './commands/worker-environment.js';
import { CliError, ExitCode } from './errors.js';
import type { CliIo } from './io.js';
import {
  keyFileOption,
  portNumber,
  positiveInt,
  storeOption,
  wholeNumber,
} from './program-options.js';

/** Sets the process exit code once a command's action has finished. */
export type SetExit = (code: number) => void;

/*
 * One function per `agate` command: its arguments, options and help text, and an action that
 * loads the command's module on demand (only `run` needs the live view and the providers).
 */

export function addRunCommand(program: Command, io: CliIo, setExit: SetExit): void {
  program
    .command('run')
    .description(
      'run an agent file (its default export) with a live view, plain lines or JSON lines',
    )
    .argument(
      '<agent-file>',
      'a .tsx/.ts/.js file whose default export is the agent element or component',
    )
    .option('--scripted <file>', 'run offline on a JSON script of model turns (scriptedModel)')
    .option(
      '--script-turn <n>',
      "with --scripted: the script's first turn to play (default 1; with --resume, the turn after the session's model calls so far)",
      positiveInt,
    )
    .option('--model <id>', 'the model to ask (in place of AGATE_MODEL)')
    .option(
      '--base-url <url>',
      "an OpenAI-compatible server's endpoint (in place of AGATE_BASE_URL; needs a model)",
    )
    .option('--store <dir>', 'save the session to this file store when the run ends')
    .option(
      '--resume <session>',
      'continue a stored session (from --store, options.store, or .agate/sessions)',
    )
    .option(
      '--take-over',
      'with --resume: run a session whose stored claim names a process that is gone (killed, machine lost)',
    )
    .option('--id <id>', 'id for a new session (default: a random UUID)')
    .option('--max-ticks <n>', 'ticks this run may take (overrides options.maxTicks)', positiveInt)
    .option('--json', 'print the events as JSON lines')
    .option('--plain', 'print plain lines even on a terminal')
    .option(
      '--studio',
      'keep a tick log and show the run live in agate studio (127.0.0.1); stays up after the run until Ctrl-C',
    )
    .option('--studio-port <n>', 'port for --studio (default: a free one)', portNumber)
    .action(async (file: string, options) => {
      // Loaded on demand: the live view and the providers are only needed to run an agent.
      const { runCommand } = await import('./commands/run.js');
      setExit(await runCommand(io, file, options));
    });
}

export function addInitCommand(program: Command, io: CliIo, setExit: SetExit): void {
  program
    .command('init')
    .description(
      'write a new agent project (what npm create agate writes): package.json, tsconfig.json, an agent with a gate, a test',
    )
    .argument('[directory]', 'where to write it (created if missing; must be empty)', '.')
    .option('--name <name>', 'the package name (default: the directory name)')
    .option(
      '--template <name>',
      "which project, as create-agate's --template: default (a calculator with a gate), coding, durable, … (an unknown name lists them all)",
    )
    .action(async (dir: string, options: { name?: string; template?: string }) => {
      const { initCommand } = await import('./commands/init.js');
      setExit(await initCommand(io, dir, options));
    });
}

export function addWorkerCommand(program: Command, io: CliIo, setExit: SetExit): void {
  program
    .command('worker')
    .description(
      'run durable runs from a PostgreSQL database (@agate/dbos) until Ctrl-C; the file exports its agents by name',
    )
    .argument(
      '<agents-file>',
      'a .tsx/.ts/.js file exporting `agents`: { name: { element, options } }',
    )
    .option(
      '--store <url>',
      'the runs database: postgres://user@host:port/database (default: DATABASE_URL)',
    )
    .option('--concurrency <n>', 'runs this worker executes at once (default 4)', positiveInt)
    .option(
      '--executor-id <id>',
      "this worker's id; restart with the same id to recover its runs at once",
    )
    .option(
      '--recovery-after-ms <ms>',
      'a worker silent this long is dead; its runs go to live workers (default 30000)',
      positiveInt,
    )
    .addHelpText('after', () => {
      const rows = WORKER_ENVIRONMENT.map(([name, what]) => `  ${name.padEnd(27)} ${what}`);
      return `\nEnvironment:\n${rows.join('\n')}\n\nExit codes: 0 stopped by Ctrl-C or SIGTERM (a second one: 130 / 143 at once), 1 its tables could not be made, 2 the agents file, the URL or the database must be fixed (the message says how).\n`;
    })
    .action(async (file: string, options) => {
      const { workerCommand } = await import('./commands/worker.js');
      setExit(await workerCommand(io, file, options));
    });
}

export function addSessionsCommand(program: Command, io: CliIo, setExit: SetExit): void {
  program
    .command('sessions')
    .description('list the stored sessions: id, status, checkpoint, ticks, saved at')
    .addOption(storeOption())
    .option('--all', 'also list ContinueGate restore points (<session>@tick-N)')
    .option('--json', 'print the rows as JSON')
    .option('--limit <n>', 'one page: at most n sessions, ordered by id', positiveInt)
    .option('--after <id>', 'the page starts after this session id')
    .option('--status <status>', 'only sessions with this status (running, completed, ...)')
    .action(async (options) => {
      const { sessionsCommand } = await import('./commands/sessions.js');
      setExit(await sessionsCommand(io, options));
    });
}

export function addShowCommand(program: Command, io: CliIo, setExit: SetExit): void {
  program
    .command('show')
    .description(
      'show a stored session: timeline in brief, gates, knobs, checkpoints and their ledger',
    )
    .argument('<session>', 'session id (or a restore point id)')
    .addOption(storeOption())
    .option('--messages <n>', 'timeline messages shown, most recent last', wholeNumber, 40)
    .action(async (id: string, options) => {
      const { showCommand } = await import('./commands/show.js');
      setExit(await showCommand(io, id, options));
    });
}

export function addApproveCommand(program: Command, io: CliIo, setExit: SetExit): void {
  program
    .command('approve')
    .description(
      'approve a pending checkpoint, or a tool call held for approval, of a stored session (signed with --key-file, AGATE_APPROVAL_KEY_FILE or AGATE_APPROVAL_KEY when set)',
    )
    .argument('<session>', 'session id')
    .argument('<checkpoint>', 'checkpoint id, or the id of a tool call held for approval')
    .requiredOption('--by <name>', 'who approves (recorded in the ledger)')
    .option('--note <text>', 'a note the model reads in its next request (checkpoints)')
    .option('--reason <text>', 'why (tool calls; recorded in the ledger)')
    .addOption(keyFileOption())
    .addOption(storeOption())
    .action(async (session: string, checkpoint: string, options) => {
      const { decideCommand } = await import('./commands/decide.js');
      setExit(await decideCommand(io, 'approve', session, checkpoint, options));
    });
}

export function addRejectCommand(program: Command, io: CliIo, setExit: SetExit): void {
  program
    .command('reject')
    .description('reject a pending checkpoint: it opens again, and the model reads the feedback')
    .argument('<session>', 'session id')
    .argument('<checkpoint>', 'checkpoint id')
    .requiredOption('--by <name>', 'who rejects (recorded in the ledger)')
    .requiredOption('--feedback <text>', 'what to change; the model reads it in its next request')
    .addOption(keyFileOption())
    .addOption(storeOption())
    .action(async (session: string, checkpoint: string, options) => {
      const { decideCommand } = await import('./commands/decide.js');
      setExit(await decideCommand(io, 'reject', session, checkpoint, options));
    });
}

export function addDbCommand(program: Command, io: CliIo, setExit: SetExit): void {
  const db = program
    .command('db')
    .description(
      'the PostgreSQL database: agate db create postgres://…, agate db migrate --store postgres://…',
    );
  db.command('migrate')
    .description('create or upgrade the Postgres store tables (otherwise done on first use)')
    .requiredOption('--store <url>', 'a postgres:// URL (?schema=NAME, default agate)')
    .action(async (options) => {
      const { migrateCommand } = await import('./commands/db.js');
      setExit(await migrateCommand(io, options));
    });
  db.command('create')
    .description(
      "create the database if it does not exist (no psql needed), then its tables: the session store's, and durable runs' with @agate/dbos installed",
    )
    .argument('[url]', 'postgres://user@host:5432/agents (default: DATABASE_URL)')
    .action(async (url: string | undefined) => {
      const { createCommand } = await import('./commands/db.js');
      setExit(await createCommand(io, url));
    });
}

export function addDenyCommand(program: Command, io: CliIo, setExit: SetExit): void {
  program
    .command('deny')
    .description(
      'deny a tool call held for approval: it is not executed, and the model reads who denied it and why',
    )
    .argument('<session>', 'session id')
    .argument('<callId>', 'the tool call id (RunResult.pendingApprovals, agate show)')
    .requiredOption('--by <name>', 'who denies (recorded in the ledger)')
    .requiredOption('--reason <text>', 'why; the model reads it in place of the result')
    .addOption(keyFileOption())
    .addOption(storeOption())
    .action(async (session: string, callId: string, options) => {
      const { decideCommand } = await import('./commands/decide.js');
      setExit(await decideCommand(io, 'deny', session, callId, options));
    });
}

export function addStudioCommand(program: Command, io: CliIo, setExit: SetExit): void {
  program
    .command('studio')
    .description(
      "a local web inspector on 127.0.0.1: sessions, ticks, each tick's context and its diff, approvals; with --agent, a chat with the agent",
    )
    .addOption(storeOption())
    .option('--port <n>', 'port to listen on (default: a free one)', portNumber)
    .option(
      '--key-file <file>',
      'sign decisions taken from the page with this private key (or AGATE_APPROVAL_KEY_FILE)',
    )
    .option(
      '--agent <agent-file>',
      'add a chat pane that talks to this agent (any file agate run takes); sessions go to --store',
    )
    .option('--scripted <file>', 'with --agent: answer offline from a JSON script of model turns')
    .option('--script-turn <n>', "with --scripted: the script's first turn to play", positiveInt)
    .option('--model <id>', 'with --agent: the model to ask (in place of AGATE_MODEL)')
    .option(
      '--base-url <url>',
      "with --agent: an OpenAI-compatible server's endpoint (in place of AGATE_BASE_URL)",
    )
    .action(async (options) => {
      if (
        options.agent === undefined &&
        ['scripted', 'scriptTurn', 'model', 'baseUrl'].some((flag) => options[flag] !== undefined)
      ) {
        throw new CliError(
          'The model flags (--scripted, --script-turn, --model, --base-url) choose the model of --agent: give the agent file too.',
          ExitCode.usage,
        );
      }
      const { studioCommand } = await import('./commands/studio.js');
      setExit(await studioCommand(io, options));
    });
}

export function addKeysCommand(program: Command, io: CliIo, setExit: SetExit): void {
  const keys = program
    .command('keys')
    .description('make the key pair that signs supervisor decisions');
  keys
    .command('new')
    .description(
      'write an Ed25519 key pair: the private key for whoever approves, the public key for the run',
    )
    .option('--out <dir>', 'where to write agate-approval.key and agate-approval.pub', '.')
    .action(async (options: { out: string }) => {
      const { keysNewCommand } = await import('./commands/keys.js');
      setExit(await keysNewCommand(io, options));
    });
}
