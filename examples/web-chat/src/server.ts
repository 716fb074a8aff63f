import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  approveCheckpoint,
  ChatConflictError,
  ChatOwnerError,
  ChatRequestError,
  CheckpointNotPendingError,
  createFileStore,
  createMemoryStore,
  openChatSession,
  rejectCheckpoint,
  type SessionStore,
  toUIMessageStream,
  UnknownCheckpointError,
  UnknownSessionError,
} from '@agate/core';
import react from '@vitejs/plugin-react';
import { pipeUIMessageStreamToResponse } from 'ai';
import { createElement } from 'react';
import { createServer as createVite, type ViteDevServer } from 'vite';
import { ChatAgent } from './agent.js';
import { offlineModel } from './offline-model.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MAX_BODY_BYTES = 256_000;

export interface WebChat {
  url: string;
  store: SessionStore;
  close(): Promise<void>;
}

/**
 * The whole example in one process: POST /api/chat (useChat's requests → the next run of the
 * chat's session), POST /api/decide (approve / reject a checkpoint, on the server where the
 * key would be), and the page, served by Vite in middleware mode.
 */
export async function startWebChat(
  options: { port?: number; store?: SessionStore } = {},
): Promise<WebChat> {
  const store = options.store ?? createMemoryStore();
  const model = offlineModel();
  const files = new Map<string, string>();
  const vite: ViteDevServer = await createVite({
    root: ROOT,
    configFile: false,
    plugins: [react()],
    appType: 'spa',
    logLevel: 'warn',
    server: { middlewareMode: true, hmr: false },
  });

  const server: Server = createServer((request, response) => {
    route(request, response).catch((error: unknown) => {
      if (!response.headersSent) json(response, 500, { error: messageOf(error) });
      else response.end();
    });
  });

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method === 'POST' && request.url === '/api/chat') {
      try {
        const chat = await openChatSession(
          createElement(ChatAgent, { files }),
          await readJson(request),
          // The chat belongs to the person the request comes from: a request as anyone else
          // (naming this chat's id) is refused before anything is read or decided.
          { model, store, owner: userOf(request) },
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
    if (request.method === 'POST' && request.url === '/api/decide') {
      const body = (await readJson(request)) as Record<string, unknown>;
      const { chatId, checkpointId, decision } = body;
      if (typeof chatId !== 'string' || typeof checkpointId !== 'string') {
        return json(response, 400, { error: 'Send { chatId, checkpointId, decision }.' });
      }
      try {
        // A real app authenticates the person here and signs with the key only the server holds.
        const entry =
          decision === 'approve'
            ? await approveCheckpoint(store, chatId, checkpointId, { by: 'web reviewer' })
            : await rejectCheckpoint(store, chatId, checkpointId, {
                by: 'web reviewer',
                feedback:
                  typeof body.feedback === 'string' && body.feedback !== ''
                    ? body.feedback
                    : 'Not yet.',
              });
        return json(response, 200, { kind: entry.kind, seq: entry.seq });
      } catch (error) {
        if (UnknownSessionError.isInstance(error) || UnknownCheckpointError.isInstance(error)) {
          return json(response, 404, { error: error.message });
        }
        if (CheckpointNotPendingError.isInstance(error))
          return json(response, 409, { error: error.message });
        throw error;
      }
    }
    vite.middlewares(request, response);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    store,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await vite.close();
    },
  };
}

/**
 * Who the request comes from. The example has no sign-in, so everyone is one local user; a
 * real app returns the user its session cookie or token authenticated, never a name the
 * client sends.
 */
function userOf(_request: IncomingMessage): string {
  return 'local-user';
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES)
      throw new ChatRequestError(`The request is over ${MAX_BODY_BYTES} bytes.`);
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

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// `pnpm --filter @agate/example-web-chat start`: sessions in .agate/web-chat, until Ctrl-C.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const chat = await startWebChat({
    port: Number(process.env.PORT ?? 5173),
    store: createFileStore('.agate/web-chat'),
  });
  process.stdout.write(`Agate web chat (offline, scripted model): ${chat.url}\n`);
  process.once('SIGINT', () => void chat.close().then(() => process.exit(0)));
}
