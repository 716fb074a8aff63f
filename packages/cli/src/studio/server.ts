import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ChatConflictError,
  ChatOwnerError,
  ChatRequestError,
  InvalidSessionIdError,
  type Session,
  type SessionStore,
  UnknownSessionError,
} from '@agate/core';
import { isValidSessionId } from '@agate/core/stores';
import { cookieValue, newStudioToken, refusal, tokenCookie, tokenCookieName } from './access.js';
import { type StudioAgent, StudioBusyError, StudioChat } from './chat.js';
import { decide, type StudioSigner, studioDecisions } from './decisions.js';
import { studioPage } from './page-html.js';
import { TOKEN_HEADER, TOKEN_PARAM } from './protocol.js';
import { StudioData } from './studio-data.js';

export interface StudioOptions extends StudioSigner {
  store: SessionStore;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** The running session of `agate run --studio` (its ticks appear live). */
  live?: () => Session | undefined;
  /** `agate studio --agent`: the agent the page's chat pane talks to. */
  agent?: StudioAgent;
}

export interface Studio {
  /** The page's address with this launch's token: what to print and open. */
  url: string;
  /** `http://127.0.0.1:<port>`, without the token. */
  origin: string;
  /** This launch's token: every request must carry it (the page's cookie, or the header). */
  token: string;
  /** Tells open pages that something changed (a tick ended, the run ended). */
  notify(sessionId: string): void;
  /** With `agent`: the studio's conversations (tests wait on `chat.idle()`). */
  chat?: StudioChat;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 16_384;
/** A chat message's body: the message's bound (16,000 characters) in any UTF-8, and its JSON. */
const MAX_CHAT_BODY_BYTES = 65_536;

/** A request the studio answers with 400: its URL names nothing well formed. */
class BadRequest extends Error {}

/**
 * `agate studio`: the inspector, served on 127.0.0.1 only, as one page with everything inline
 * (no external assets). Only that page may use it: every request needs this launch's token,
 * and a decision also the page's origin (see access.ts). Decisions are signed here, with the
 * key this process holds; the page never sees it.
 */
export async function startStudio(options: StudioOptions): Promise<Studio> {
  // Bundled (from the sources) or read (built) before listening: a page that cannot be made
  // fails the command at once, not the first visit.
  await studioPage();
  const chat =
    options.agent === undefined
      ? undefined
      : new StudioChat(options.agent, options.store, (id) => notifyAll(id));
  // The chat's run in progress is live as `agate run --studio`'s is: its ticks appear as they end.
  const data = new StudioData(options.store, () => options.live?.() ?? chat?.running);
  const decisions = studioDecisions(options.store, options);
  const token = newStudioToken();
  const listeners = new Set<ServerResponse>();
  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => sendFailure(response, error));
  });
  const port = () => (server.address() as AddressInfo | null)?.port ?? 0;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://studio.invalid');
    // The printed address is the one place the token may come in the URL: it is traded at
    // once for the cookie (below), so it stays in neither the address bar nor the history.
    const trade =
      request.method === 'GET' && url.pathname === '/' && url.searchParams.has(TOKEN_PARAM);
    const refused = refusal(
      {
        method: request.method ?? 'GET',
        host: request.headers.host,
        origin: request.headers.origin,
        contentType: request.headers['content-type'],
        token: trade
          ? (url.searchParams.get(TOKEN_PARAM) ?? undefined)
          : (header(request, TOKEN_HEADER) ??
            cookieValue(header(request, 'cookie'), tokenCookieName(port()))),
        fetchSite: header(request, 'sec-fetch-site'),
      },
      { port: port(), token },
    );
    if (refused !== undefined) return send(response, refused.status, { error: refused.error });

    const path = url.pathname.split('/').filter(Boolean).map(decodeSegment);
    if (trade) return sendTokenTrade(response, tokenCookie(port(), token));
    if (request.method === 'GET' && url.pathname === '/') return sendPage(response);
    if (request.method === 'GET' && url.pathname === '/api/events') {
      response.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      response.write(': connected\n\n');
      listeners.add(response);
      request.on('close', () => listeners.delete(response));
      return;
    }
    if (url.pathname === '/api/chat' && chat !== undefined) {
      if (request.method === 'GET') return send(response, 200, chat.info());
      if (request.method === 'POST') {
        const started = await chat.send(await readJson(request, MAX_CHAT_BODY_BYTES));
        return send(response, 202, started);
      }
    }
    if (path[0] !== 'api' || path[1] !== 'sessions') return notFound(request, response, url);
    if (request.method === 'GET' && (await sendSessionData(response, data, path))) return;
    const record =
      request.method === 'POST' && path.length === 6
        ? decisions.at(path[3] as string, path[5] as string)
        : undefined;
    if (record === undefined) return notFound(request, response, url);
    const id = sessionId(path[2]);
    // The run holds the session: its end would write over a decision taken meanwhile.
    chat?.assertIdle(id, 'the decision');
    const answer = await decide(await readJson(request), (by, field) =>
      record(id, path[4] as string, by, field),
    );
    if (answer.ok) notifyAll(id);
    return send(response, answer.status, answer.body);
  }

  function notifyAll(sessionId: string): void {
    data.changed(sessionId);
    const line = `event: changed\ndata: ${JSON.stringify({ sessionId })}\n\n`;
    for (const listener of listeners) listener.write(line);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const origin = `http://127.0.0.1:${port()}`;
  return {
    url: `${origin}/?${TOKEN_PARAM}=${token}`,
    origin,
    token,
    notify: notifyAll,
    ...(chat !== undefined ? { chat } : {}),
    close: async () => {
      // A run in progress ends as aborted and is saved before the studio goes.
      chat?.abort();
      await chat?.idle();
      await new Promise<void>((resolve) => {
        for (const listener of listeners) listener.end();
        listeners.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** The answer to a request whose handling threw: the error's kind decides the status. */
function sendFailure(response: ServerResponse, error: unknown): void {
  if (
    error instanceof BadRequest ||
    InvalidSessionIdError.isInstance(error) ||
    ChatRequestError.isInstance(error)
  ) {
    send(response, 400, { error: error.message });
  } else if (error instanceof TooLarge) {
    // The rest of the body is not read: the connection ends with the answer.
    response.setHeader('connection', 'close');
    send(response, 413, { error: error.message });
  } else if (StudioBusyError.isInstance(error)) {
    send(response, 409, { error: error.message, code: 'busy', sessionId: error.sessionId });
  } else if (ChatConflictError.isInstance(error)) {
    send(response, 409, { error: error.message, code: 'conflict' });
  } else if (ChatOwnerError.isInstance(error)) {
    send(response, 403, { error: error.message });
  } else if (UnknownSessionError.isInstance(error)) {
    send(response, 404, { error: error.message });
  } else {
    send(response, 500, { error: error instanceof Error ? error.message : String(error) });
  }
}

/** 303 to the bare address: the browser replaces the entry, so no history holds the token. */
function sendTokenTrade(response: ServerResponse, cookie: string): void {
  response.writeHead(303, {
    location: '/',
    'set-cookie': cookie,
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  });
  response.end();
}

async function sendPage(response: ServerResponse): Promise<void> {
  const page = await studioPage();
  response.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': page.csp,
    // Nothing of the studio's address is sent on as a referrer.
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  response.end(page.html);
}

/**
 * `GET /api/sessions[/<id>[/ticks[/<n>]]]`: the list, a session, its tick summaries or one
 * tick. False when the path is none of these (the caller answers 404).
 */
async function sendSessionData(
  response: ServerResponse,
  data: StudioData,
  path: readonly string[],
): Promise<boolean> {
  if (path.length === 2) {
    send(response, 200, await data.sessions());
    return true;
  }
  const id = sessionId(path[2]);
  if (path.length === 3) {
    const view = await data.session(id);
    if (view === undefined) send(response, 404, { error: `No session "${id}" in the store.` });
    else send(response, 200, view);
    return true;
  }
  if (path.length === 4 && path[3] === 'ticks') {
    send(response, 200, await data.summaries(id));
    return true;
  }
  if (path.length === 5 && path[3] === 'ticks') {
    const tick = tickNumber(path[4]);
    const detail = await data.detail(id, tick);
    if (detail === undefined)
      send(response, 404, { error: `No tick ${tick} in the tick log of "${id}".` });
    else send(response, 200, detail);
    return true;
  }
  return false;
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new BadRequest(`The address holds a malformed escape (${JSON.stringify(segment)}).`);
  }
}

/** A session id from the URL, checked before any store sees it. */
function sessionId(segment: string | undefined): string {
  if (!isValidSessionId(segment)) throw new InvalidSessionIdError(segment);
  return segment;
}

function tickNumber(segment: string | undefined): number {
  const tick = Number(segment);
  if (segment === undefined || !/^\d{1,9}$/.test(segment) || !Number.isSafeInteger(tick)) {
    throw new BadRequest(`A tick is a whole number, not ${JSON.stringify(segment)}.`);
  }
  return tick;
}

function notFound(request: IncomingMessage, response: ServerResponse, url: URL): void {
  send(response, 404, { error: `Nothing at ${request.method} ${url.pathname}.` });
}

function send(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent) return;
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    // Never run as a script or sniffed into a page by another site's <script src>.
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
  });
  response.end(JSON.stringify(body));
}

/** A body over its bound: answered 413 without reading the rest. */
class TooLarge extends Error {}

/**
 * The body as JSON, or undefined when it is not JSON. With `limit` (the chat), a longer body
 * is a `TooLarge`; without, it reads as no body (a decision then lacks its `by`).
 */
async function readJson(request: IncomingMessage, limit?: number): Promise<unknown> {
  const body = await readBody(request, limit ?? MAX_BODY_BYTES);
  if (body === undefined) {
    if (limit !== undefined) {
      throw new TooLarge(`The body is over ${limit} bytes: send a shorter message.`);
    }
    return undefined;
  }
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The body, or undefined once it passes `limit` bytes: reading stops there (the stream is
 * paused, not destroyed, so that the answer still reaches the client).
 */
function readBody(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.off('data', onData);
        request.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.once('end', () => resolve(Buffer.concat(chunks)));
    request.once('error', reject);
  });
}
