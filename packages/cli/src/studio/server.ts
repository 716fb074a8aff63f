import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ApprovalKeyError,
  approveCheckpoint,
  approveToolCall,
  CheckpointDecisionError,
  type CheckpointLedgerEntry,
  CheckpointNotPendingError,
  denyToolCall,
  InvalidSessionIdError,
  rejectCheckpoint,
  type Session,
  type SessionStore,
  ToolApprovalDecisionError,
  ToolCallNotPendingError,
  UnknownCheckpointError,
  UnknownSessionError,
  UnknownToolCallError,
} from '@agate/core';
import { STUDIO_PAGE } from './page.js';
import { StudioData } from './studio-data.js';

export interface StudioOptions {
  store: SessionStore;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Signs decisions made from the page: an Ed25519 private key (PEM), never sent to the page. */
  privateKey?: string;
  /** Or the shared secret (HMAC, version-1 ledgers). */
  key?: string;
  /** The running session of `agate run --studio` (its ticks appear live). */
  live?: () => Session | undefined;
}

export interface Studio {
  url: string;
  /** Tells open pages that something changed (a tick ended, the run ended). */
  notify(sessionId: string): void;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 16_384;
const MAX_TEXT = 4_000;

/**
 * `agate studio`: the inspector, served on 127.0.0.1 only, with everything inline (no external
 * assets). Decisions made from the page are signed here, with the key this process holds.
 */
export async function startStudio(options: StudioOptions): Promise<Studio> {
  const data = new StudioData(options.store, options.live);
  const listeners = new Set<ServerResponse>();
  let origin = '';
  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      send(response, 500, { error: error instanceof Error ? error.message : String(error) });
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // Another site's page, or a rebound DNS name, must not read or decide anything here.
    const host = request.headers.host ?? '';
    if (!isLocalHost(host, port()))
      return send(response, 403, { error: 'Unexpected Host header.' });
    const url = new URL(request.url ?? '/', origin);
    const path = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (request.method === 'GET' && url.pathname === '/') {
      response.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy':
          "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'",
      });
      response.end(STUDIO_PAGE);
      return;
    }
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
    if (request.method === 'GET' && path[0] === 'api' && path[1] === 'sessions') {
      if (path.length === 2) return send(response, 200, await data.sessions());
      const id = path[2] as string;
      if (path.length === 4 && path[3] === 'ticks')
        return send(response, 200, await data.summaries(id));
      if (path.length === 5 && path[3] === 'ticks') {
        const detail = await data.detail(id, Number(path[4]));
        return detail === undefined
          ? send(response, 404, { error: `No tick ${path[4]} in the tick log of "${id}".` })
          : send(response, 200, detail);
      }
    }
    const record =
      request.method === 'POST' && path.length === 6 && path[0] === 'api' && path[1] === 'sessions'
        ? decisionAt(path[3] as string, path[5] as string)
        : undefined;
    if (record !== undefined) {
      if (request.headers.origin !== undefined && request.headers.origin !== origin) {
        return send(response, 403, { error: 'Decisions are taken only from the studio page.' });
      }
      if (!(request.headers['content-type'] ?? '').startsWith('application/json')) {
        return send(response, 415, { error: 'Send the decision as application/json.' });
      }
      const sessionId = path[2] as string;
      const result = await decide(await readJson(request), (by, field) =>
        record(sessionId, path[4] as string, by, field),
      );
      if (result.ok) notifyAll(sessionId);
      return send(response, result.status, result.body);
    }
    send(response, 404, { error: `Nothing at ${request.method} ${url.pathname}.` });
  }

  /** The key decisions from the page are signed with: the one this process holds. */
  const signer = {
    ...(options.privateKey !== undefined ? { privateKey: options.privateKey } : {}),
    ...(options.key !== undefined && options.privateKey === undefined ? { key: options.key } : {}),
  };

  /** The body's text fields, by name (absent or blank: undefined). */
  type Field = (name: string) => string | undefined;
  type MakeDecision = (
    sessionId: string,
    id: string,
    by: string,
    field: Field,
  ) => Promise<CheckpointLedgerEntry>;

  /**
   * The decisions the page can make, by the URL's `checkpoints|tool-calls/<id>/<verb>`. A
   * rejection and a denial need their text (the core says so when it is missing).
   */
  const DECISIONS: { readonly [noun: string]: { readonly [verb: string]: MakeDecision } } = {
    checkpoints: {
      approve: (sessionId, id, by, field) =>
        approveCheckpoint(options.store, sessionId, id, {
          by,
          ...optional('note', field),
          ...signer,
        }),
      reject: (sessionId, id, by, field) =>
        rejectCheckpoint(options.store, sessionId, id, {
          by,
          feedback: field('feedback') ?? '',
          ...signer,
        }),
    },
    'tool-calls': {
      approve: (sessionId, id, by, field) =>
        approveToolCall(options.store, sessionId, id, {
          by,
          ...optional('reason', field),
          ...signer,
        }),
      deny: (sessionId, id, by, field) =>
        denyToolCall(options.store, sessionId, id, {
          by,
          reason: field('reason') ?? '',
          ...signer,
        }),
    },
  };

  function decisionAt(noun: string, verb: string): MakeDecision | undefined {
    // Own keys only: `constructor` or `__proto__` in the URL names no decision.
    const verbs = Object.hasOwn(DECISIONS, noun) ? DECISIONS[noun] : undefined;
    return verbs !== undefined && Object.hasOwn(verbs, verb) ? verbs[verb] : undefined;
  }

  type Answer = { ok: boolean; status: number; body: unknown };

  /** A decision from the page: who decides (`by`) is required; `record` makes it in the core. */
  async function decide(
    body: unknown,
    record: (by: string, field: Field) => Promise<CheckpointLedgerEntry>,
  ): Promise<Answer> {
    const fields =
      typeof body === 'object' && body !== null ? (body as { [name: string]: unknown }) : {};
    const by = text(fields.by);
    if (by === undefined)
      return { ok: false, status: 400, body: { error: 'Say who decides ("by").' } };
    try {
      const entry = await record(by, (name) => text(fields[name]));
      return {
        ok: true,
        status: 200,
        body: {
          kind: entry.kind,
          by: entry.by,
          seq: entry.seq,
          signed: entry.signature !== undefined,
        },
      };
    } catch (error) {
      return refused(error);
    }
  }

  /** A decision's typed error as an HTTP answer (anything else is a server error). */
  function refused(error: unknown): Answer {
    const message = error instanceof Error ? error.message : String(error);
    if (
      error instanceof UnknownSessionError ||
      error instanceof UnknownCheckpointError ||
      error instanceof UnknownToolCallError
    ) {
      return { ok: false, status: 404, body: { error: message } };
    }
    if (error instanceof CheckpointNotPendingError || error instanceof ToolCallNotPendingError) {
      return { ok: false, status: 409, body: { error: message } };
    }
    if (
      error instanceof CheckpointDecisionError ||
      error instanceof ToolApprovalDecisionError ||
      error instanceof InvalidSessionIdError ||
      error instanceof ApprovalKeyError
    ) {
      return { ok: false, status: 400, body: { error: message } };
    }
    throw error;
  }

  function notifyAll(sessionId: string): void {
    data.changed(sessionId);
    const line = `event: changed\ndata: ${JSON.stringify({ sessionId })}\n\n`;
    for (const listener of listeners) listener.write(line);
  }

  const port = () => (server.address() as AddressInfo | null)?.port ?? 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  origin = `http://127.0.0.1:${port()}`;
  return {
    url: `${origin}/`,
    notify: notifyAll,
    close: () =>
      new Promise<void>((resolve) => {
        for (const listener of listeners) listener.end();
        listeners.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function isLocalHost(host: string, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

/** `{ [name]: text }` when the body has that text field, else nothing. */
function optional<K extends string>(
  name: K,
  field: (name: string) => string | undefined,
): Partial<{ [key in K]: string }> {
  const value = field(name);
  return value === undefined ? {} : ({ [name]: value } as { [key in K]: string });
}

function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed.slice(0, MAX_TEXT);
}

function send(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent) return;
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}
