/**
 * The real model routes every template carries (issue 50): `model.ts` reads the environment
 * as `agate run` does for an OpenAI-compatible server (`@ai-sdk/openai-compatible`), and
 * sends `OPENAI_API_KEY` through `@ai-sdk/openai`; `model.test.tsx` runs both against the
 * loopback model server of `@agate/testing` on 127.0.0.1.
 */

/** `model.ts` */
const MODEL_TS = `import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';

/** Environment variables, e.g. \`process.env\`. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * The real model the environment names, or \`undefined\` (then the project runs offline):
 *
 * - \`AGATE_BASE_URL\` + \`AGATE_MODEL\` (and optional \`AGATE_API_KEY\`): an OpenAI-compatible
 *   server (Ollama, vLLM, LM Studio, a gateway), the variables \`agate run\` reads, through the
 *   same provider (\`@ai-sdk/openai-compatible\`).
 * - else \`OPENAI_API_KEY\` (and optional \`AGATE_MODEL\`, \`OPENAI_BASE_URL\`): OpenAI through
 *   \`@ai-sdk/openai\`, its Responses API; \`OPENAI_API=chat\` for chat completions instead
 *   (a gateway that serves only \`/chat/completions\`).
 */
/** The OpenAI model when \`AGATE_MODEL\` names none (as \`agate run\`). */
export const DEFAULT_OPENAI_MODEL = 'gpt-4.1-mini';

export function modelFromEnv(env: Env): LanguageModel | undefined {
  const value = (name: string) => {
    const v = env[name]?.trim();
    return v === undefined || v === '' ? undefined : v;
  };
  const baseURL = value('AGATE_BASE_URL');
  const modelId = value('AGATE_MODEL');
  if (baseURL !== undefined) {
    if (modelId === undefined) {
      throw new Error(
        \`AGATE_BASE_URL is set (\${baseURL}) but AGATE_MODEL is not: set it to a model the server serves.\`,
      );
    }
    const key = value('AGATE_API_KEY');
    const local = createOpenAICompatible({
      name: 'local',
      baseURL,
      includeUsage: true,
      ...(key !== undefined ? { apiKey: key } : {}),
    });
    return local(modelId);
  }
  const apiKey = value('OPENAI_API_KEY');
  if (apiKey === undefined) return undefined;
  const openaiURL = value('OPENAI_BASE_URL');
  const openai = createOpenAI({
    apiKey,
    ...(openaiURL !== undefined ? { baseURL: openaiURL } : {}),
  });
  const id = modelId ?? DEFAULT_OPENAI_MODEL;
  const api = value('OPENAI_API') ?? 'responses';
  if (api === 'responses') return openai.responses(id);
  if (api === 'chat') return openai.chat(id);
  throw new Error(\`OPENAI_API=\${api}: set it to responses (the default) or chat.\`);
}
`;

/** `model.test.tsx` */
const MODEL_TEST_TSX = `import { createSession, System, Timeline, User } from '@agate/core';
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from '@agate/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { modelFromEnv } from './model.js';

let server: OpenAICompatibleServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A real model server's HTTP and streaming, on 127.0.0.1, answering from a script. */
const loopback = async () => {
  server = await startOpenAICompatibleServer(['Hello from the model server.']);
  return server;
};

/** A run of a small agent on the model the environment names. */
const runOn = async (env: Record<string, string>) => {
  const model = modelFromEnv(env);
  if (model === undefined) throw new Error('the environment names no model');
  const agent = (
    <>
      <System>You greet people.</System>
      <User>Say hello.</User>
      <Timeline />
    </>
  );
  return createSession(agent, { model }).run();
};

describe('the real model routes (model.ts), against a model server on 127.0.0.1', () => {
  it('none named: undefined, and the project runs offline', () => {
    expect(modelFromEnv({})).toBeUndefined();
    expect(modelFromEnv({ OPENAI_API_KEY: ' ' })).toBeUndefined();
  });

  it('AGATE_BASE_URL + AGATE_MODEL: the OpenAI-compatible route agate run reads', async () => {
    const { baseURL, requests } = await loopback();
    const result = await runOn({ AGATE_BASE_URL: baseURL, AGATE_MODEL: 'local-model' });
    expect(result.status).toBe('completed');
    expect(result.text).toBe('Hello from the model server.');
    expect(requests[0]?.model).toBe('local-model');
  });

  it('OPENAI_API_KEY with OPENAI_API=chat: @ai-sdk/openai, chat completions', async () => {
    const { baseURL, requests } = await loopback();
    const result = await runOn({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: baseURL,
      OPENAI_API: 'chat',
      AGATE_MODEL: 'gpt-test',
    });
    expect(result.status).toBe('completed');
    expect(result.text).toBe('Hello from the model server.');
    expect(requests[0]?.model).toBe('gpt-test');
  });

  it("OPENAI_API_KEY alone: @ai-sdk/openai's Responses API (POST /responses)", async () => {
    const { baseURL, requests } = await loopback();
    // The loopback server speaks chat completions only: its 404 names the route the model took.
    const result = await runOn({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: baseURL });
    expect(result.status).toBe('error');
    expect(result.error?.message).toContain('POST /v1/responses');
    expect(requests).toEqual([]);
  });

  it('a half-named route says what is missing', () => {
    expect(() => modelFromEnv({ AGATE_BASE_URL: 'http://127.0.0.1:9/v1' })).toThrow(
      /AGATE_MODEL/,
    );
    expect(() => modelFromEnv({ OPENAI_API_KEY: 'k', OPENAI_API: 'completions' })).toThrow(
      /OPENAI_API=completions/,
    );
  });
});
`;

export function modelTs(): string {
  return MODEL_TS;
}

export function modelTest(): string {
  return MODEL_TEST_TSX;
}

/** `.env.example`: the two routes, copied to `.env` (which git ignores). */
export const PROVIDER_ENV_EXAMPLE = `# A real model (without these, the project runs offline on its scripted model).
# Copy to .env and fill in ONE route; .env is in .gitignore.

# 1. An OpenAI-compatible server (Ollama, vLLM, LM Studio, a gateway): the variables
#    \`agate run\` reads, through @ai-sdk/openai-compatible.
# AGATE_BASE_URL=http://localhost:11434/v1
# AGATE_MODEL=qwen3:8b
# AGATE_API_KEY=            # if the server needs one

# 2. OpenAI through @ai-sdk/openai (its Responses API). AGATE_MODEL picks the model
#    (default gpt-4.1-mini); OPENAI_BASE_URL replaces the endpoint; OPENAI_API=chat uses
#    chat completions instead (a gateway that serves only /chat/completions).
# OPENAI_API_KEY=sk-...
# AGATE_MODEL=gpt-4.1-mini
# OPENAI_API=chat
`;

/** `run.tsx` of the default and coding templates: the agent in a program of your own. */
export function runTsx(): string {
  return `import { createSession } from '@agate/core';
import Agent from './agent.js';
import { modelFromEnv } from './model.js';

/**
 * \`npm run start:sdk\`: the agent in a program of your own, on the model .env (or the
 * environment) names through model.ts. \`npm start\` (agate run) does the same with the CLI's
 * live view.
 */
try {
  process.loadEnvFile('.env');
} catch (error) {
  if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
}
const model = modelFromEnv(process.env);
if (model === undefined) {
  process.stderr.write(
    'No model named: copy .env.example to .env and fill in one of its routes (or run offline: npm run demo).\\n',
  );
  process.exit(2);
}
const result = await createSession(<Agent />, { model }).run();
process.stdout.write(\`\${result.text}\\nstatus: \${result.status}\${result.reason ? \` (\${result.reason})\` : ''}\\n\`);
process.exitCode = result.status === 'completed' ? 0 : 1;
`;
}

/** The README's section on real models, for the templates `agate run` runs. */
export function realModelReadme(): string {
  return `## A real model

Copy \`.env.example\` to \`.env\` and fill in one of its two routes: an OpenAI-compatible
server such as Ollama, vLLM or LM Studio (\`AGATE_BASE_URL\` and \`AGATE_MODEL\`), or OpenAI
(\`OPENAI_API_KEY\`, and \`AGATE_MODEL\` for the model). Then either

- \`node --env-file=.env node_modules/@agate/cli/bin/agate.js run agent.tsx\` (or export the
  variables and run \`npx agate run agent.tsx\`): the CLI with its live view. It sends
  OpenAI's key through the same OpenAI-compatible provider (chat completions); or
- \`npm run start:sdk\`: \`run.tsx\`, the agent in a program of your own on \`model.ts\`'s
  routes: the OpenAI-compatible one, or OpenAI through \`@ai-sdk/openai\` (its Responses API;
  \`OPENAI_API=chat\` for chat completions). It reads \`.env\` itself.

\`model.test.tsx\` runs both routes against a model server on 127.0.0.1, offline.
`;
}
