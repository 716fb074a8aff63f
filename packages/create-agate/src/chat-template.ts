/**
 * The `chat` template: a shop's support agent behind a `useChat` page. A small `node:http`
 * server opens each chat's session with `openChatSession` (the chat has an owner; a refund
 * the model asks for is held until the person approves it in the page), streams the run back
 * as a UI message stream, and serves the page, bundled with esbuild. Offline it runs on a
 * scripted model; `model.ts` (shared with the other templates) names the real ones.
 */
import { modelTest, modelTs, PROVIDER_ENV_EXAMPLE } from './model-template.js';
import {
  gitignore,
  type ProjectScripts,
  packageJson,
  packedNote,
  type TemplateOptions,
  THIRD_PARTY,
  tsconfigJson,
} from './templates.js';

const SCRIPTS: ProjectScripts = {
  test: 'vitest run',
  typecheck: 'tsc --noEmit',
  start: 'tsx server.ts',
  demo: 'tsx demo.ts',
};

/** What the page and its server add to the default project's dependencies. */
export const CHAT_DEPENDENCIES = {
  dependencies: {
    '@ai-sdk/react': THIRD_PARTY['@ai-sdk/react'],
    esbuild: THIRD_PARTY.esbuild,
    'react-dom': THIRD_PARTY['react-dom'],
  },
  devDependencies: { '@types/react-dom': THIRD_PARTY['@types/react-dom'] },
} as const;

/** `agent.tsx` */
const AGENT_TSX = `import { System, Timeline, Tool } from '@agate/core';
import { z } from 'zod';

export interface Order {
  id: string;
  item: string;
  cents: number;
  status: 'delivered' | 'refunded';
}

/** The shop's orders, by id: the agent reads them and, with a person's approval, refunds. */
export type Orders = Map<string, Order>;

export function sampleOrders(): Orders {
  return new Map([
    ['1042', { id: '1042', item: 'a blue teapot', cents: 3_900, status: 'delivered' }],
    ['1043', { id: '1043', item: 'two mugs', cents: 2_400, status: 'delivered' }],
  ]);
}

/** Order ids are digits: what the model sends is checked before anything reads the orders. */
const orderId = z.string().regex(/^\\d{1,10}$/, 'an order id is 1 to 10 digits');

/**
 * A support agent for a small shop. It may look orders up freely; every refund is **held**
 * until a person approves it in the page (\`needsApproval\`): the model cannot move money on
 * its own say-so.
 */
export function SupportAgent(props: { orders: Orders }) {
  return (
    <>
      <System>
        You answer a shop's customers. Look the order up before you act on it. Refund only delivered
        orders, with a short reason. Keep replies to two sentences.
      </System>
      <Timeline />
      <Tool
        name="lookup_order"
        description="Look an order up by its id."
        input={z.object({ orderId })}
        execute={({ orderId }) => props.orders.get(orderId) ?? \`There is no order \${orderId}.\`}
      />
      <Tool
        name="refund_order"
        description="Refund a delivered order in full. A person approves every refund."
        input={z.object({ orderId, reason: z.string().min(1).max(500) })}
        needsApproval
        execute={({ orderId }) => {
          const order = props.orders.get(orderId);
          if (order === undefined) return \`There is no order \${orderId}.\`;
          if (order.status === 'refunded') return \`Order \${orderId} was already refunded.\`;
          order.status = 'refunded';
          return \`Refunded \${(order.cents / 100).toFixed(2)} for order \${orderId}.\`;
        }}
      />
    </>
  );
}
`;

/** `offline-model.ts` */
const OFFLINE_MODEL_TS = `import { type ScriptedTurn, scriptedModel } from '@agate/testing';
import type { LanguageModel } from 'ai';

/**
 * The model of the offline demo: no key, no network. Each reply follows from what the request
 * already holds, so every chat plays the same story: look the order up, ask for the refund
 * (held until you approve or deny it in the page), then say what happened.
 */
export function offlineModel(): LanguageModel {
  const turn: ScriptedTurn = ({ options }) => {
    const calls = new Set<string>();
    let refund: string | undefined;
    let lastUserText = '';
    for (const message of options.prompt) {
      if (message.role === 'user') {
        lastUserText = message.content.map((p) => (p.type === 'text' ? p.text : '')).join(' ');
      }
      if (message.role !== 'assistant' && message.role !== 'tool') continue;
      for (const part of message.content) {
        if (part.type === 'tool-call') calls.add(part.toolName);
        if (part.type === 'tool-result' && part.toolName === 'refund_order') {
          refund = JSON.stringify(part.output);
        }
      }
    }
    const id = /\\b\\d{1,10}\\b/.exec(lastUserText)?.[0] ?? '1042';
    if (!calls.has('lookup_order')) {
      return {
        text: \`Let me look order \${id} up.\`,
        toolCalls: [{ toolName: 'lookup_order', input: { orderId: id } }],
      };
    }
    if (!calls.has('refund_order')) {
      return {
        text: 'It was delivered. I am asking for a full refund.',
        toolCalls: [{ toolName: 'refund_order', input: { orderId: id, reason: 'arrived broken' } }],
      };
    }
    if (refund !== undefined && /denied/i.test(refund)) {
      return 'The refund was not approved, so nothing was refunded. A colleague will follow up.';
    }
    return 'Your refund went through: you will see it on your statement in a few days.';
  };
  return scriptedModel([turn], { whenExhausted: 'repeat-last', modelId: 'offline-support' });
}
`;

/** `server.ts` */
const SERVER_TS = `import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  ChatConflictError,
  ChatOwnerError,
  ChatRequestError,
  createFileStore,
  createMemoryStore,
  openChatSession,
  type SessionStore,
  toUIMessageStream,
} from '@agate/core';
import type { LanguageModel } from 'ai';
import { pipeUIMessageStreamToResponse } from 'ai';
import { build } from 'esbuild';
import { createElement } from 'react';
import { type Orders, SupportAgent, sampleOrders } from './agent.js';
import { modelFromEnv } from './model.js';

/** Bigger requests are refused before they are parsed. */
const MAX_BODY_BYTES = 256_000;

/**
 * Who the request comes from. This server listens on 127.0.0.1 only and has no sign-in, so
 * everyone is one local user; before it leaves your machine, return the user your session
 * cookie or token authenticated here — never a name the client sends.
 */
function userOf(_request: IncomingMessage): string {
  return 'local-user';
}

/** The page: what the browser may load and talk to is this server, nothing else. */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; style-src 'self' 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
};

const INDEX_HTML = \`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Agate chat</title>
  </head>
  <body>
    <div id="root"></div>
    <script type="module" src="/app.js"></script>
  </body>
</html>
\`;

export interface ChatServerOptions {
  /** Default 0: a free port. */
  port?: number;
  /** Where chats are kept; default in memory. */
  store?: SessionStore;
  /** Default: the model the environment names (model.ts), else the offline one. */
  model?: LanguageModel;
  /** The shop's orders; default \`sampleOrders()\`. */
  orders?: Orders;
}

export interface ChatServer {
  /** \`http://127.0.0.1:<port>/\` */
  url: string;
  store: SessionStore;
  orders: Orders;
  /** Which model answers, for the first line of output. */
  modelName: string;
  close(): Promise<void>;
}

/**
 * One process serves the chat: \`GET /\` the page, \`GET /app.js\` its script (page/app.tsx,
 * bundled with esbuild on first request), and \`POST /api/chat\`, what useChat sends: the next
 * run of the chat's session, streamed back as a UI message stream. A refund the agent asks
 * for arrives as a tool call waiting for approval; the page's answer comes back with the next
 * request, and \`openChatSession\` decides it as the chat's owner.
 */
export async function startChatServer(options: ChatServerOptions = {}): Promise<ChatServer> {
  const store = options.store ?? createMemoryStore();
  const orders = options.orders ?? sampleOrders();
  const model = options.model ?? modelFromEnv(process.env) ?? (await offline());
  let script: Promise<string> | undefined;

  const server: Server = createServer((request, response) => {
    route(request, response).catch((error: unknown) => {
      if (!response.headersSent) json(response, 500, { error: messageOf(error) });
      else response.end();
    });
  });
  let origin = '';

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (request.method === 'GET' && path === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...PAGE_HEADERS });
      response.end(INDEX_HTML);
      return;
    }
    if (request.method === 'GET' && path === '/app.js') {
      script ??= bundlePage();
      const code = await script;
      response.writeHead(200, {
        'content-type': 'text/javascript; charset=utf-8',
        ...PAGE_HEADERS,
      });
      response.end(code);
      return;
    }
    if (request.method === 'POST' && path === '/api/chat') {
      // Another site's page in the same browser may send requests here too: only this page's
      // own (its Origin, or none from a program) with a JSON body are answered.
      const from = request.headers.origin;
      if (from !== undefined && from !== origin) {
        request.resume();
        return json(response, 403, { error: \`Requests from \${from} are not accepted.\` });
      }
      if (!/^application\\/json\\b/i.test(request.headers['content-type'] ?? '')) {
        request.resume();
        return json(response, 415, { error: 'Send JSON (content-type: application/json).' });
      }
      const owner = userOf(request);
      try {
        const chat = await openChatSession(
          createElement(SupportAgent, { orders }),
          await readJson(request),
          // The chat belongs to the person the request comes from; tool calls held for
          // approval are decided as that person when the page sends its answer.
          { model, store, owner, toolApprovals: { by: owner } },
        );
        pipeUIMessageStreamToResponse({
          response,
          stream: toUIMessageStream(chat.session, { onFinish: chat.save }),
        });
      } catch (error) {
        if (ChatRequestError.isInstance(error))
          return json(response, 400, { error: error.message });
        if (ChatOwnerError.isInstance(error)) return json(response, 403, { error: error.message });
        // Another message of this chat is being answered: nothing of this one was stored.
        if (ChatConflictError.isInstance(error))
          return json(response, 409, { error: error.message });
        throw error;
      }
      return;
    }
    request.resume();
    if (path === '/favicon.ico') {
      response.writeHead(204).end();
      return;
    }
    json(response, 404, { error: \`No route for \${request.method} \${path}.\` });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // Loopback only: the server has no sign-in (see userOf).
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  origin = \`http://127.0.0.1:\${port}\`;
  return {
    url: \`\${origin}/\`,
    store,
    orders,
    modelName: typeof model === 'string' ? model : \`\${model.provider} \${model.modelId}\`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The offline model, loaded only when no real one is named (it comes from @agate/testing). */
async function offline(): Promise<LanguageModel> {
  const { offlineModel } = await import('./offline-model.js');
  return offlineModel();
}

/** page/app.tsx and what it imports (React, useChat) as one browser script. */
async function bundlePage(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./page/app.tsx', import.meta.url))],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  const [file] = result.outputFiles;
  if (file === undefined) throw new Error('esbuild wrote no script for page/app.tsx');
  return file.text;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      throw new ChatRequestError(\`The request is over \${MAX_BODY_BYTES} bytes.\`);
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ChatRequestError('The request body is not JSON.');
  }
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

/** Reads \`file\` into process.env if it is there (Node's own .env parser). */
export function loadEnvFile(file: string): void {
  try {
    process.loadEnvFile(file);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// \`npm start\`: chats kept in .agate/chats, until Ctrl-C. A .env file names the model.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  loadEnvFile('.env');
  const port = Number(process.env.PORT ?? 5173);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(\`PORT=\${process.env.PORT} is not a port number (0 to 65535).\`);
  }
  const chat = await startChatServer({
    port,
    store: createFileStore('.agate/chats'),
  });
  process.stdout.write(\`Agate chat on \${chat.modelName}: open \${chat.url}\\n\`);
  process.once('SIGINT', () => void chat.close().then(() => process.exit(0)));
}
`;

/** `page/app.tsx` */
const PAGE_APP_TSX = `/** @jsxImportSource react */
// The page is React DOM, not an agent tree: the pragma above gives it React's JSX namespace
// (tsconfig's jsxImportSource, @agate/core, refuses DOM tags in agent files).
import type { AgateUIMessage } from '@agate/core';
import { useChat } from '@ai-sdk/react';
import {
  DefaultChatTransport,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
} from 'ai';
import { type FormEvent, useState } from 'react';
import { createRoot } from 'react-dom/client';

type Part = AgateUIMessage['parts'][number];

/** useChat as the AI SDK ships it; held tool calls answered with addToolApprovalResponse. */
export function App() {
  const { messages, sendMessage, addToolApprovalResponse, status, error } = useChat<AgateUIMessage>(
    {
      transport: new DefaultChatTransport({ api: '/api/chat' }),
      // Once every held call of the last reply is answered, the page sends the answers.
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    },
  );
  const [input, setInput] = useState('Please refund order 1042, it arrived broken.');
  const busy = status === 'submitted' || status === 'streaming';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (input.trim() === '') return;
    void sendMessage({ text: input });
    setInput('');
  };
  const answer = (id: string, approved: boolean) =>
    void addToolApprovalResponse({ id, approved, ...(approved ? {} : { reason: 'Not now.' }) });

  return (
    <main style={{ maxWidth: 720, margin: '24px auto', font: '15px/1.45 system-ui, sans-serif' }}>
      <h1 style={{ fontSize: 20 }}>Agate chat</h1>
      {messages.map((message) => (
        <article
          key={message.id}
          className={\`message \${message.role}\`}
          style={{ margin: '12px 0' }}
        >
          <b>{message.role === 'user' ? 'You' : 'Agent'}</b>
          {message.parts.map((part, i) => (
            // Parts have no ids of their own; their order within a message is stable.
            <PartView key={i} part={part} busy={busy} onAnswer={answer} />
          ))}
        </article>
      ))}
      {error && <p role="alert">{error.message}</p>}
      <form onSubmit={submit} style={{ display: 'flex', gap: 8 }}>
        <input
          aria-label="message"
          value={input}
          onChange={(e) => setInput(e.target.value)}
          style={{ flex: 1, font: 'inherit', padding: 6 }}
        />
        <button type="submit" disabled={busy}>
          Send
        </button>
      </form>
    </main>
  );
}

function PartView(props: {
  part: Part;
  busy: boolean;
  onAnswer: (id: string, approved: boolean) => void;
}) {
  const { part } = props;
  if (part.type === 'text') return <p>{part.text}</p>;
  if (part.type === 'data-agate-gate') {
    return (
      <p className="refusal" role="status" style={banner('#fdecec', '#d33')}>
        Refused by {part.data.gates.join(', ')}: {part.data.reasons[0]}
      </p>
    );
  }
  if (part.type === 'data-agate-status') {
    return (
      <p className="run-status" style={{ color: '#667', fontSize: 13 }}>
        run {part.data.status}
      </p>
    );
  }
  if (!isToolUIPart(part)) return null;
  const name = part.type.slice('tool-'.length);
  const input = JSON.stringify(part.input);
  if (part.state === 'approval-requested') {
    return (
      <div className="approval" style={banner('#fff8df', '#e0b000')}>
        <p>
          The agent asks to run <b>{name}</b> {input}
        </p>
        <button
          type="button"
          disabled={props.busy}
          onClick={() => props.onAnswer(part.approval.id, true)}
        >
          Approve
        </button>{' '}
        <button
          type="button"
          disabled={props.busy}
          onClick={() => props.onAnswer(part.approval.id, false)}
        >
          Deny
        </button>
      </div>
    );
  }
  const state =
    part.state === 'output-available'
      ? \`→ \${JSON.stringify(part.output)}\`
      : part.state === 'output-denied'
        ? 'denied'
        : part.state;
  return (
    <p className="tool" style={{ color: '#446', fontSize: 13, fontFamily: 'monospace' }}>
      {name} {input} {state}
    </p>
  );
}

function banner(background: string, border: string) {
  return { background, borderLeft: \`4px solid \${border}\`, padding: '6px 10px', margin: '6px 0' };
}

const root = document.getElementById('root');
if (root !== null) createRoot(root).render(<App />);
`;

/** `chat-client.ts` */
const CHAT_CLIENT_TS = `import type { AgateUIMessage } from '@agate/core';
import { DefaultChatTransport, isToolUIPart, readUIMessageStream } from 'ai';

/**
 * What the page's useChat does, from Node: send the chat to POST /api/chat with the AI SDK's
 * own transport, read the UI message stream back into the assistant's message. The demo and
 * the tests talk to the server through it, over real HTTP.
 */
export async function send(
  url: string,
  chatId: string,
  messages: AgateUIMessage[],
): Promise<AgateUIMessage> {
  const transport = new DefaultChatTransport<AgateUIMessage>({
    api: new URL('api/chat', url).href,
  });
  const stream = await transport.sendMessages({
    trigger: 'submit-message',
    chatId,
    messageId: undefined,
    messages,
    abortSignal: undefined,
  });
  // useChat continues the last assistant message when the chat goes on after an approval.
  const last = messages.at(-1);
  let reply: AgateUIMessage | undefined;
  for await (const message of readUIMessageStream<AgateUIMessage>({
    stream,
    ...(last?.role === 'assistant' ? { message: last } : {}),
  })) {
    reply = message;
  }
  if (reply === undefined) throw new Error('the server sent no message');
  return reply;
}

/** A user's message, as useChat's sendMessage({ text }) makes it. */
export function userMessage(id: string, text: string): AgateUIMessage {
  return { id, role: 'user', parts: [{ type: 'text', text }] };
}

/** What the page's Approve / Deny buttons do (useChat's addToolApprovalResponse). */
export function answerApprovals(message: AgateUIMessage, approved: boolean): AgateUIMessage {
  return {
    ...message,
    parts: message.parts.map((part) =>
      isToolUIPart(part) && part.state === 'approval-requested'
        ? {
            ...part,
            state: 'approval-responded',
            approval: {
              id: part.approval.id,
              approved,
              ...(approved ? {} : { reason: 'Not now.' }),
            },
          }
        : part,
    ),
  } as AgateUIMessage;
}

/** One line per part, for the demo's output. */
export function partLines(message: AgateUIMessage): string[] {
  return message.parts.flatMap((part) => {
    if (part.type === 'text') return [\`  \${part.text}\`];
    if (part.type === 'data-agate-status') return [\`  (run \${part.data.status})\`];
    if (part.type === 'data-agate-gate') return [\`  refused: \${part.data.reasons[0]}\`];
    if (!isToolUIPart(part)) return [];
    const call = \`\${part.type.slice('tool-'.length)} \${JSON.stringify(part.input)}\`;
    if (part.state === 'approval-requested') return [\`  \${call}: waiting for your approval\`];
    if (part.state === 'output-available') return [\`  \${call} → \${JSON.stringify(part.output)}\`];
    if (part.state === 'output-denied') return [\`  \${call}: denied\`];
    return [\`  \${call}: \${part.state}\`];
  });
}
`;

/** `demo.ts` */
const DEMO_TS = `import { answerApprovals, partLines, send, userMessage } from './chat-client.js';
import { startChatServer } from './server.js';

/**
 * \`npm run demo\`: the chat offline, over HTTP, as the page would hold it: a customer asks for
 * a refund, the agent looks the order up and asks to refund it, the run waits; a person
 * approves; the refund runs and the agent answers.
 */
const chat = await startChatServer();
try {
  process.stdout.write(\`Agate chat on \${chat.modelName} at \${chat.url}\\n\\n\`);
  const question = userMessage('u1', 'Please refund order 1042, it arrived broken.');
  process.stdout.write(
    \`You: \${question.parts[0]?.type === 'text' ? question.parts[0].text : ''}\\n\`,
  );
  const held = await send(chat.url, 'demo', [question]);
  process.stdout.write(\`Agent:\\n\${partLines(held).join('\\n')}\\n\\n\`);
  process.stdout.write('You approve the refund in the page.\\n\\n');
  const done = await send(chat.url, 'demo', [question, answerApprovals(held, true)]);
  // useChat continues the same assistant message: print what the approval added to it.
  const before = new Set(partLines(held));
  const added = partLines(done).filter((line) => !before.has(line));
  process.stdout.write(\`Agent:\\n\${added.join('\\n')}\\n\\n\`);
  process.stdout.write(\`Order 1042 is now \${chat.orders.get('1042')?.status}.\\n\`);
} finally {
  await chat.close();
}
`;

/** `server.test.ts` */
const SERVER_TEST_TS = `import { isToolUIPart } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { answerApprovals, send, userMessage } from './chat-client.js';
import { type ChatServer, startChatServer } from './server.js';

let server: ChatServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The offline model: no key, no network. */
const start = async () => {
  server = await startChatServer({ model: (await import('./offline-model.js')).offlineModel() });
  return server;
};

const refund = (message: Awaited<ReturnType<typeof send>>) =>
  message.parts.filter(isToolUIPart).find((p) => p.type === 'tool-refund_order');

describe('the chat server, over HTTP on 127.0.0.1', () => {
  it('holds the refund until the page approves it; then the refund runs and the agent answers', async () => {
    const { url, orders } = await start();
    const question = userMessage('u1', 'Please refund order 1042, it arrived broken.');
    const held = await send(url, 'chat-1', [question]);
    expect(refund(held)).toMatchObject({ state: 'approval-requested', input: { orderId: '1042' } });
    expect(held.parts).toContainEqual(
      expect.objectContaining({
        type: 'data-agate-status',
        data: expect.objectContaining({ status: 'awaiting-approval' }),
      }),
    );
    expect(orders.get('1042')?.status).toBe('delivered');

    const done = await send(url, 'chat-1', [question, answerApprovals(held, true)]);
    expect(refund(done)).toMatchObject({
      state: 'output-available',
      output: 'Refunded 39.00 for order 1042.',
    });
    expect(orders.get('1042')?.status).toBe('refunded');
    const texts = done.parts.filter((p) => p.type === 'text');
    expect(texts.at(-1)?.text).toContain('went through');
    expect(done.parts).toContainEqual(
      expect.objectContaining({
        type: 'data-agate-status',
        data: expect.objectContaining({ status: 'completed' }),
      }),
    );
  });

  it('a denial in the page refunds nothing, and the agent says so', async () => {
    const { url, orders } = await start();
    const question = userMessage('u1', 'Refund order 1043 please.');
    const held = await send(url, 'chat-2', [question]);
    const done = await send(url, 'chat-2', [question, answerApprovals(held, false)]);
    expect(refund(done)).toMatchObject({ state: 'output-denied' });
    expect(orders.get('1043')?.status).toBe('delivered');
    expect(JSON.stringify(done.parts)).toContain('not approved');
  });

  it('serves the page with a content security policy, and its script bundled', async () => {
    const { url } = await start();
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await page.text()).toContain('<script type="module" src="/app.js">');
    const script = await fetch(new URL('app.js', url));
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    // React DOM and the page's own text, in one file the browser loads from this server.
    expect(await script.text()).toContain('Agate chat');
  }, 60_000);

  it('refuses another site, a body that is not JSON, a chat without id, and a regenerate', async () => {
    const { url } = await start();
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(new URL('api/chat', url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
    const message = userMessage('u1', 'hi');
    const fromElsewhere = await post(JSON.stringify({ id: 'c', messages: [message] }), {
      origin: 'https://evil.example',
    });
    expect(fromElsewhere.status).toBe(403);
    expect((await post('not json')).status).toBe(400);
    const asText = await post('{}', { 'content-type': 'text/plain' });
    expect(asText.status).toBe(415);
    expect((await post(JSON.stringify({ messages: [message] }))).status).toBe(400);
    const regenerate = await post(
      JSON.stringify({ id: 'c', messages: [message], trigger: 'regenerate-message' }),
    );
    expect(regenerate.status).toBe(400);
    expect((await post('x'.repeat(300_000))).status).toBe(400);
    expect((await fetch(new URL('api/other', url))).status).toBe(404);
  });
});
`;

export function chatReadme({ name, tarballs = {} }: TemplateOptions): string {
  const packed = Object.keys(tarballs).length > 0;
  return `# ${name}

An [Agate](https://agate-dev.github.io/agate/) agent behind a chat page: a shop's support
agent that looks orders up and may refund them, but **every refund waits for a person** to
approve it in the page.

- \`agent.tsx\`: the agent. \`refund_order\` has \`needsApproval\`: the model's call is held, the
  run ends \`awaiting-approval\`, and nothing is refunded until the page's answer comes back.
- \`page/app.tsx\`: the page, the AI SDK's \`useChat\` (\`@ai-sdk/react\`). A held call shows
  **Approve / Deny** buttons (\`addToolApprovalResponse\`); the answer is sent by itself.
- \`server.ts\`: a small \`node:http\` server on 127.0.0.1. \`POST /api/chat\` opens the chat's
  session with \`openChatSession\` (the chat belongs to its \`owner\`; the page's approvals are
  decided as that person) and streams the run back with \`toUIMessageStream\`. It serves the
  page too (bundled with esbuild, under a content security policy), and refuses requests
  from other sites' pages.
- \`model.ts\`: the real model routes; \`offline-model.ts\`: the scripted model used without one.

\`\`\`sh
npm install
npm test           # the server over real HTTP on 127.0.0.1, on the scripted model
npm run demo       # offline: a refund asked for, held, approved over HTTP, done
npm start          # the page: http://127.0.0.1:5173 (PORT=... for another)
\`\`\`

Open the page, send the message that is already typed, and approve (or deny) the refund when
the buttons appear. Chats are kept in \`.agate/chats\` (\`npx agate sessions --store
.agate/chats\` lists them).

## A real model

Copy \`.env.example\` to \`.env\` and fill in one of its two routes; \`npm start\` reads it:

1. an OpenAI-compatible server (Ollama, vLLM, LM Studio, a gateway): \`AGATE_BASE_URL\` and
   \`AGATE_MODEL\`, the variables \`agate run\` reads, through \`@ai-sdk/openai-compatible\`;
2. OpenAI through \`@ai-sdk/openai\` (its Responses API): \`OPENAI_API_KEY\`, and \`AGATE_MODEL\`
   for the model.

Without either, the server runs on the scripted model in \`offline-model.ts\`, which plays the
same story every time.

## What to change first

- **The agent**: \`SupportAgent\` in \`agent.tsx\`: its tools, which of them need approval
  (\`needsApproval\` also takes a function of the input, e.g. refunds over 50.00 only).
- **Who the user is**: \`userOf()\` in \`server.ts\` says everyone is one local user. Before the
  server leaves your machine, return the user your sign-in authenticated there.
- **Where chats live**: \`createFileStore('.agate/chats')\` in \`server.ts\`; \`@agate/postgres\`
  for several servers.
- **The page**: \`page/app.tsx\` draws text, tool calls, approvals and Agate's refusal and status
  parts; it is plain React.

\`tsconfig.json\` sets \`"jsxImportSource": "@agate/core"\`, Agate's JSX namespace, so a DOM tag
in an agent tree is a type error; the page opts back into React's with a
\`/** @jsxImportSource react */\` line. \`npm run typecheck\` runs \`tsc --noEmit\` (TypeScript 5).
${packedNote(packed)}`;
}

/** The default's settings, with the DOM's types for the page. */
function chatTsconfigJson(): string {
  const config = JSON.parse(tsconfigJson()) as { compilerOptions: Record<string, unknown> };
  config.compilerOptions.lib = ['ES2023', 'DOM', 'DOM.Iterable'];
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** Every file of a new `chat` project, by path relative to its directory. */
export function chatProjectFiles(options: TemplateOptions): Record<string, string> {
  return {
    'package.json': packageJson(options, SCRIPTS, CHAT_DEPENDENCIES),
    'tsconfig.json': chatTsconfigJson(),
    'agent.tsx': AGENT_TSX,
    'server.ts': SERVER_TS,
    'server.test.ts': SERVER_TEST_TS,
    'page/app.tsx': PAGE_APP_TSX,
    'chat-client.ts': CHAT_CLIENT_TS,
    'demo.ts': DEMO_TS,
    'offline-model.ts': OFFLINE_MODEL_TS,
    'model.ts': modelTs(),
    'model.test.tsx': modelTest(),
    'README.md': chatReadme(options),
    '.gitignore': gitignore(),
    '.env.example': PROVIDER_ENV_EXAMPLE,
  };
}
