/**
 * The `durable` template: a support-desk agent run by `agate worker` on PostgreSQL through
 * @agate/dbos, so a run survives a killed worker and waits on a queue for any live one. The
 * agent files a ticket (a side effect made idempotent with `toolCallId`) and may not reply
 * before it did (a gate cleared by the host from the tool's typed result). Its model is the
 * one the environment names (`agate run`'s variables, through `@ai-sdk/openai`), or offline a
 * scripted model that answers from the request alone, as a durable replay needs.
 */
import {
  envExample,
  gitignore,
  type ProjectScripts,
  packageJson,
  packedNote,
  type TemplateOptions,
  tsconfigJson,
} from './templates.js';

/** `agate` as the project's scripts run it: with `.env` read when there is one. */
const AGATE = 'node --env-file-if-exists=.env node_modules/@agate/cli/bin/agate.js';

const SCRIPTS: ProjectScripts & Record<string, string> = {
  test: 'vitest run',
  typecheck: 'tsc --noEmit',
  'db:create': `${AGATE} db create`,
  start: `${AGATE} worker agent.tsx`,
  ask: 'node --env-file-if-exists=.env ask.ts',
  demo: 'node --env-file-if-exists=.env demo.ts',
};

/**
 * What the durable project adds to the default's dependencies. `@ai-sdk/openai` is exact, as
 * `ai` is: it pins `@ai-sdk/provider` and `-utils` exactly, the versions this `ai` pins, so the
 * project holds one copy of each.
 */
export const DURABLE_THIRD_PARTY = { '@ai-sdk/openai': '4.0.118' } as const;

/** The Agate packages the durable project depends on (`--from` needs their tarballs). */
export const DURABLE_AGATE_PACKAGES = [
  '@agate/core',
  '@agate/cli',
  '@agate/testing',
  '@agate/dbos',
  '@agate/postgres',
] as const;

function durablePackageJson(options: TemplateOptions): string {
  const pkg = JSON.parse(packageJson(options, SCRIPTS)) as {
    dependencies: Record<string, string>;
  };
  const { tarballs = {}, agateVersion } = options;
  const agate = (name: '@agate/dbos' | '@agate/postgres') => {
    const tarball = tarballs[name];
    return tarball === undefined ? agateVersion : `file:${tarball}`;
  };
  pkg.dependencies = sorted({
    ...pkg.dependencies,
    // The worker and its client; the store `agate db create` and `agate show --store` use.
    '@agate/dbos': agate('@agate/dbos'),
    '@agate/postgres': agate('@agate/postgres'),
    ...DURABLE_THIRD_PARTY,
  });
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

function sorted(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The default's settings; Node runs `demo.ts` and `ask.ts` itself, so imports name `.ts` files. */
function durableTsconfigJson(): string {
  const config = JSON.parse(tsconfigJson()) as { compilerOptions: Record<string, unknown> };
  Object.assign(config.compilerOptions, {
    allowImportingTsExtensions: true,
    // Only what Node's type stripping can erase (no enums, no parameter properties).
    erasableSyntaxOnly: true,
    verbatimModuleSyntax: true,
  });
  return `${JSON.stringify(config, null, 2)}\n`;
}

export function durableAgentTsx(): string {
  return `import { defineTool, gate, System, Timeline, Tool, User, useGate } from '@agate/core';
import type { DurableAgents } from '@agate/dbos';
import { z } from 'zod';
import { chooseModel } from './model.ts';

/** What a run is asked (\`startRun({ input })\`): checked, since any client may send it. */
export const Ticket = z.object({
  customer: z.string().min(1).max(200),
  message: z.string().min(1).max(4_000),
});
export type Ticket = z.infer<typeof Ticket>;

/** Stands in for your customer database. */
const CUSTOMERS: Record<string, { name: string; plan: 'free' | 'pro' }> = {
  'ada@example.com': { name: 'Ada Lovelace', plan: 'pro' },
  'alan@example.com': { name: 'Alan Turing', plan: 'free' },
};

export const lookupCustomer = defineTool({
  name: 'lookup_customer',
  description: "Look up a customer's name and plan by email.",
  input: z.object({ email: z.string().max(200) }),
  execute: ({ email }) => CUSTOMERS[email.trim().toLowerCase()] ?? { name: 'unknown', plan: 'free' },
});

/** Filed tickets by the call that filed them: in real code, a table with a unique key. */
export const filedTickets = new Map<string, { id: string; priority: string; summary: string }>();

export const fileTicket = defineTool({
  name: 'file_ticket',
  description: 'File the ticket with a priority and a one-line summary.',
  input: z.object({
    priority: z.enum(['low', 'normal', 'urgent']),
    summary: z.string().min(1).max(200),
  }),
  execute: ({ priority, summary }, { toolCallId }) => {
    // At-least-once: a call in flight when its worker died runs again on another worker,
    // with the same toolCallId. File it once.
    const known = filedTickets.get(toolCallId);
    if (known !== undefined) return known;
    const ticket = { id: \`T-\${filedTickets.size + 1}\`, priority, summary };
    filedTickets.set(toolCallId, ticket);
    return ticket;
  },
});

/** No reply before the ticket is filed: the host clears it from file_ticket's result. */
const ticketFiled = gate({
  description: 'File the ticket before replying',
  instructions: 'TICKET NOT FILED: call file_ticket with a priority and a summary, then reply.',
  initial: 'active',
  clearWhen: (tick) => tick.resultsOf(fileTicket).some((t) => t.id.startsWith('T-')),
});

export function SupportDesk({ customer, message }: Ticket) {
  const filed = useGate('ticket-filed', ticketFiled);
  return (
    <>
      <System>
        You triage support messages. Look the customer up, file a ticket (urgent when a pro
        customer cannot work), then reply to the customer in two sentences.
      </System>
      <User>
        From {customer}: {message}
      </User>
      <Timeline />
      <Tool {...lookupCustomer} />
      <Tool {...fileTicket} />
      {filed.element}
    </>
  );
}

/** What \`agate worker agent.tsx\` runs, by the name a client's \`startRun({ agent })\` gives. */
export const agents: DurableAgents = {
  support: {
    element: (input: unknown) => <SupportDesk {...Ticket.parse(input)} />,
    options: { model: await chooseModel(process.env), maxTicks: 12 },
  },
};
`;
}

export function durableModelTs(): string {
  return `import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModel } from 'ai';

/** The variables \`agate run\` reads to pick a model (see .env.example). */
export interface ModelEnv {
  AGATE_BASE_URL?: string;
  AGATE_MODEL?: string;
  AGATE_API_KEY?: string;
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  [name: string]: string | undefined;
}

export type ModelRoute =
  | { kind: 'openai-compatible'; baseURL: string; model: string }
  | { kind: 'openai'; model: string }
  | { kind: 'scripted' };

const set = (value: string | undefined) => (value === undefined || value === '' ? undefined : value);

/**
 * The route the environment names, in \`agate run\`'s order: an OpenAI-compatible server
 * (\`AGATE_BASE_URL\` + \`AGATE_MODEL\`), else OpenAI (\`OPENAI_API_KEY\`), else the scripted
 * demo model (offline).
 */
export function modelRoute(env: ModelEnv): ModelRoute {
  const baseURL = set(env.AGATE_BASE_URL);
  const model = set(env.AGATE_MODEL);
  if (baseURL !== undefined) {
    if (model === undefined) {
      throw new Error(\`AGATE_BASE_URL is set (\${baseURL}) but AGATE_MODEL is not: set it to a model the server serves.\`);
    }
    return { kind: 'openai-compatible', baseURL, model };
  }
  if (set(env.OPENAI_API_KEY) !== undefined) return { kind: 'openai', model: model ?? 'gpt-4.1-mini' };
  return { kind: 'scripted' };
}

export function describeRoute(route: ModelRoute): string {
  switch (route.kind) {
    case 'openai-compatible':
      return \`the OpenAI-compatible server at \${route.baseURL}, model "\${route.model}"\`;
    case 'openai':
      return \`OpenAI, model "\${route.model}"\`;
    case 'scripted':
      return 'the scripted demo model (offline; set a model in .env for a real one)';
  }
}

/** The model the worker's runs use. */
export async function chooseModel(env: ModelEnv): Promise<LanguageModel> {
  const route = modelRoute(env);
  switch (route.kind) {
    case 'openai-compatible':
      // Chat completions: what Ollama, vLLM and LM Studio serve.
      return createOpenAI({ name: 'local', baseURL: route.baseURL, apiKey: set(env.AGATE_API_KEY) ?? 'none' }).chat(route.model);
    case 'openai':
      return createOpenAI({
        apiKey: set(env.OPENAI_API_KEY),
        ...(set(env.OPENAI_BASE_URL) !== undefined ? { baseURL: set(env.OPENAI_BASE_URL) } : {}),
      })(route.model);
    case 'scripted': {
      // Loaded only here: @agate/testing is a dev dependency.
      const { demoModel } = await import('./demo-model.ts');
      return demoModel();
    }
  }
}
`;
}

export function durableDemoModelTs(): string {
  return `import { scriptedModel } from '@agate/testing';

/**
 * The offline model: it answers from the request alone (which tools have results in the
 * prompt), never from a count of its calls. One model serves every run of the worker, and a
 * run replayed after a crash asks it again from where the record ends.
 */
export function demoModel() {
  return scriptedModel(
    [
      ({ options }) => {
        // What each tool answered (by name), and the ticket: the first user message (later
        // ones are the gate's instructions).
        const answered = new Map<string, string>();
        let asked = '';
        for (const message of options.prompt) {
          if (message.role === 'tool') {
            for (const part of message.content) {
              if (part.type === 'tool-result') answered.set(part.toolName, JSON.stringify(part.output));
            }
          }
          if (message.role === 'user' && asked === '') {
            for (const part of message.content) if (part.type === 'text') asked += part.text;
          }
        }
        const email = /From (\\S+):/.exec(asked)?.[1] ?? 'unknown';
        const customer = answered.get('lookup_customer');
        if (customer === undefined) {
          return { toolCalls: [{ toolName: 'lookup_customer', input: { email } }] };
        }
        // The lookup's result as the prompt carries it (JSON, perhaps inside a string).
        const priority = /plan\\W+pro\\b/.test(customer) ? 'urgent' : 'normal';
        if (!answered.has('file_ticket')) {
          const summary = asked.replace(/^From \\S+: /, '').slice(0, 120);
          return { toolCalls: [{ toolName: 'file_ticket', input: { priority, summary } }] };
        }
        return \`Sorry for the trouble: I filed this as \${priority} and our team is on it. You'll hear from us soon.\`;
      },
    ],
    { whenExhausted: 'repeat-last' },
  );
}
`;
}

export function durableAskTs(): string {
  return `import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createClient, type DurableRunResult } from '@agate/dbos';

/** The runs database: DATABASE_URL (in .env, or the environment). */
export function databaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  const url = env.DATABASE_URL;
  if (url === undefined || !/^postgres(ql)?:\\/\\//.test(url)) {
    throw new Error(
      'Set DATABASE_URL to your PostgreSQL database (copy .env.example to .env), then run npm run db:create once.',
    );
  }
  return url;
}

/** The same, or its message and exit code 1: for scripts, without a stack trace. */
export function databaseUrlOrExit(): string {
  try {
    return databaseUrl();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return process.exit(1);
  }
}

/**
 * Puts a run on the queue and waits for its end, on whichever worker takes it. No worker needs
 * to run here, nor yet: the run waits in the database for one.
 */
export async function ask(
  url: string,
  input: { customer: string; message: string },
  sessionId = \`ticket-\${randomUUID().slice(0, 8)}\`,
): Promise<{ sessionId: string; result: DurableRunResult }> {
  const client = await createClient({ databaseUrl: url });
  try {
    const run = await client.startRun({ agent: 'support', sessionId, input });
    return { sessionId, result: await run.result({ timeoutMs: 120_000 }) };
  } finally {
    await client.close();
  }
}

export function report(sessionId: string, result: DurableRunResult): string {
  return (
    \`run \${sessionId}: \${result.status}\\n\` +
    (result.text ? \`reply: \${result.text}\\n\` : '') +
    (result.error ? \`error: \${result.error.name}: \${result.error.message}\\n\` : '') +
    \`Its session, tick by tick: npx agate show \${sessionId} --store "$DATABASE_URL"\\n\`
  );
}

// \`npm run ask -- <customer> <message>\`: one run, answered by the workers of this database.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [customer, ...words] = process.argv.slice(2);
  if (customer === undefined || words.length === 0) {
    console.error('Usage: npm run ask -- <customer email> <message>');
    process.exit(2);
  }
  const { sessionId, result } = await ask(databaseUrlOrExit(), { customer, message: words.join(' ') });
  process.stdout.write(report(sessionId, result));
}
`;
}

export function durableDemoTs(): string {
  return `import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { ask, databaseUrlOrExit, report } from './ask.ts';
import { describeRoute, modelRoute } from './model.ts';

/**
 * \`npm run demo\`: a worker in a process of its own (\`agate worker agent.tsx\`, as in
 * production), one run put on the queue by a client, its result, then the worker stopped as
 * Ctrl-C stops it. Offline unless .env names a model. Needs \`npm run db:create\` once.
 */
const url = databaseUrlOrExit();
console.log(\`model: \${describeRoute(modelRoute(process.env))}\`);
const agate = fileURLToPath(new URL('./node_modules/@agate/cli/bin/agate.js', import.meta.url));
const worker = spawn(process.execPath, [agate, 'worker', 'agent.tsx'], {
  cwd: fileURLToPath(new URL('.', import.meta.url)),
  stdio: ['ignore', 'inherit', 'inherit'],
});
const exited = once(worker, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
const workerStopped = exited.then(([code]) => {
  throw new Error(\`the worker stopped (exit code \${code}) before the run ended: see its message above.\`);
});
try {
  const { sessionId, result } = await Promise.race([
    ask(url, { customer: 'ada@example.com', message: 'I cannot log in since the password reset.' }),
    workerStopped,
  ]);
  process.stdout.write(report(sessionId, result));
  if (result.status !== 'completed') process.exitCode = 1;
} catch (error) {
  console.error(\`demo: \${error instanceof Error ? error.message : String(error)}\`);
  process.exitCode = 1;
} finally {
  workerStopped.catch(() => {});
  if (worker.exitCode === null) {
    worker.kill('SIGTERM');
    await exited;
  }
}
`;
}

export function durableAgentTest(): string {
  return `import { createSession } from '@agate/core';
import { scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { agents, filedTickets, SupportDesk } from './agent.tsx';
import { demoModel } from './demo-model.ts';
import { modelRoute } from './model.ts';

describe('the support agent (run in-process, on the scripted demo model)', () => {
  it('looks the customer up, files one urgent ticket, then replies', async () => {
    filedTickets.clear();
    const session = createSession(
      <SupportDesk customer="ada@example.com" message="I cannot log in." />,
      { model: demoModel() },
    );
    const result = await session.run();
    expect(result.status).toBe('completed');
    expect(result.text).toContain('urgent');
    expect([...filedTickets.values()]).toEqual([
      { id: 'T-1', priority: 'urgent', summary: 'I cannot log in.' },
    ]);
  });

  it("files a free customer's ticket as normal: the priority follows the lookup's result", async () => {
    filedTickets.clear();
    const session = createSession(
      <SupportDesk customer="alan@example.com" message="The export button does nothing." />,
      { model: demoModel() },
    );
    const result = await session.run();
    expect(result.status).toBe('completed');
    expect([...filedTickets.values()].map((t) => t.priority)).toEqual(['normal']);
  });

  it('may not reply before it filed the ticket: the gate refuses, the run ends blocked', async () => {
    const session = createSession(<SupportDesk customer="alan@example.com" message="Hi." />, {
      model: scriptedModel(['Hello! How can I help?'], { whenExhausted: 'repeat-last' }),
      maxTicks: 10,
    });
    const result = await session.run();
    expect(result.status).toBe('blocked');
  });

  it("the worker's agent refuses an input that is not a ticket", () => {
    expect(() => agents.support?.element({ customer: 42 })).toThrow();
    expect(() => agents.support?.element({ customer: 'a@b.c', message: 'x'.repeat(5_000) })).toThrow();
  });

  it('picks the model as agate run does', () => {
    expect(modelRoute({})).toEqual({ kind: 'scripted' });
    expect(modelRoute({ OPENAI_API_KEY: 'sk-x' })).toEqual({ kind: 'openai', model: 'gpt-4.1-mini' });
    expect(modelRoute({ AGATE_BASE_URL: 'http://localhost:11434/v1', AGATE_MODEL: 'qwen3:8b', OPENAI_API_KEY: 'sk-x' })).toMatchObject({ kind: 'openai-compatible' });
    expect(() => modelRoute({ AGATE_BASE_URL: 'http://localhost:11434/v1' })).toThrow(/AGATE_MODEL/);
  });
});
`;
}

export function durableEnvExample(): string {
  return `# The runs database (PostgreSQL): the workers, the clients and \`agate db create\` read it.
DATABASE_URL=postgres://agate:agate@127.0.0.1:5432/agents

${envExample()}`;
}

export function durableReadme({ name, tarballs = {} }: TemplateOptions): string {
  const packed = Object.keys(tarballs).length > 0;
  return `# ${name}

A durable [Agate](https://agate-dev.github.io/agate/) agent: \`agent.tsx\` triages support
messages — looks the customer up, files a ticket, replies — and runs in **workers** on
PostgreSQL (\`@agate/dbos\`, on DBOS Transact). Every model call and tool call is a step
recorded in the database: a worker killed mid-run loses nothing, and its runs go on in
another worker. A gate keeps the agent from replying before the ticket is filed.

## Run it

You need a PostgreSQL server (Docker: \`docker run -d -p 5432:5432 -e POSTGRES_USER=agate
-e POSTGRES_PASSWORD=agate postgres:17\`; or your distribution's package, or a managed one).

\`\`\`sh
npm install
cp .env.example .env   # set DATABASE_URL; a model too, or the demo model answers offline
npm run db:create      # agate db create: the database and its tables, once
npm test               # the agent on the scripted model, in-process (no database)
npm run demo           # a worker process, one run through the queue, its result
\`\`\`

In production, start workers (any number, on any machines, one database) and put runs on
the queue from anywhere:

\`\`\`sh
npm start                                             # agate worker agent.tsx, until Ctrl-C
npm run ask -- ada@example.com "I cannot log in."     # in another terminal: a run, its reply
npx agate sessions --store "$DATABASE_URL"            # the stored sessions
\`\`\`

The model is the one \`.env\` names, as \`agate run\` reads it: an OpenAI-compatible server
(Ollama, vLLM, LM Studio: \`AGATE_BASE_URL\` and \`AGATE_MODEL\`) or OpenAI
(\`OPENAI_API_KEY\`), both through \`@ai-sdk/openai\` (\`model.ts\`); with neither, the
scripted demo model in \`demo-model.ts\` answers.

## The files

- \`agent.tsx\`: the agent (\`<SupportDesk>\`), its tools and gate, and \`agents\`, what
  \`agate worker\` runs by name.
- \`model.ts\`, \`demo-model.ts\`: which model; the offline one answers from the request alone
  (one model serves every run, and a run replayed after a crash asks it again).
- \`ask.ts\`: a client (\`createClient\`, \`startRun\`, \`result\`); \`demo.ts\`: a worker and a run.
- \`agent.test.tsx\`: the agent's tests on scripted models.

## What to change first

- **The agent**: \`SupportDesk\` and its tools. A tool with side effects must do them once per
  \`toolCallId\` (as \`file_ticket\` does): a call in flight when its worker dies runs again.
- **Approvals**: \`needsApproval\` on a tool holds its calls until a person decides
  (\`npx agate approve <session> <call> --store "$DATABASE_URL"\`); the run waits in the database,
  with no process needed meanwhile.
- **Workers**: \`npm start -- --concurrency 8\`; \`agate worker --help\` for the rest.

Durable runs, recovery and the replay rule for code in a workflow:
[docs/durable.md](https://agate-dev.github.io/agate/durable.html).
${packedNote(packed)}`;
}

/** Every file of a new `durable` project, by path relative to its directory. */
export function durableProjectFiles(options: TemplateOptions): Record<string, string> {
  return {
    'package.json': durablePackageJson(options),
    'tsconfig.json': durableTsconfigJson(),
    'agent.tsx': durableAgentTsx(),
    'agent.test.tsx': durableAgentTest(),
    'model.ts': durableModelTs(),
    'demo-model.ts': durableDemoModelTs(),
    'ask.ts': durableAskTs(),
    'demo.ts': durableDemoTs(),
    'README.md': durableReadme(options),
    '.gitignore': gitignore(),
    '.env.example': durableEnvExample(),
  };
}
