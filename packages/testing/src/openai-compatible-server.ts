import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One tool call the fake server streams back, in the OpenAI `tool_calls` format. */
export interface ServerToolCall {
  /** The function name (`function.name`). */
  toolName: string;
  /** Arguments: an object is sent as JSON; a string is sent as is (to script malformed JSON). */
  input?: unknown;
  /** Defaults to `call_<n>`. */
  toolCallId?: string;
}

export interface ServerReply {
  text?: string;
  /** Sent as `reasoning_content` (what vLLM, DeepSeek and Ollama use). */
  reasoning?: string;
  toolCalls?: ServerToolCall[];
  /** Defaults: prompt ≈ request message characters / 4, completion ≈ reply characters / 4. */
  usage?: { promptTokens?: number; completionTokens?: number };
  /** Defaults to `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: string;
  /**
   * Answer with this HTTP error instead of a completion (the OpenAI error JSON shape). `headers`
   * are sent with it: `{ 'retry-after-ms': '5' }` makes the AI SDK's retry wait 5 ms.
   */
  error?: {
    status: number;
    message: string;
    type?: string;
    code?: string | number;
    headers?: Record<string, string>;
  };
  /**
   * Cut the connection after this many chunks of a streamed answer (0: right after the
   * headers), as a server that dies mid-answer does. A non-streamed answer is cut at once.
   */
  disconnectAfterChunks?: number;
  /** Wait before answering (the wait ends early if the client goes away). */
  delayMs?: number;
  /**
   * Answer once this settles (after `delayMs`, if both are given; the wait ends early if the
   * client goes away): a test holds the model's answer while it checks what a run shows in the
   * meantime, then lets it go, instead of guessing a delay long enough for a busy machine.
   */
  until?: PromiseLike<unknown>;
}

/** A recorded request: what the client POSTed to /v1/chat/completions, parsed. */
export interface ChatCompletionRequest {
  model: string;
  messages: ChatCompletionMessage[];
  tools?: Array<{
    type: 'function';
    function: { name: string; description?: string; parameters: unknown; strict?: boolean };
  }>;
  tool_choice?: unknown;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [key: string]: unknown;
}

export interface ChatCompletionMessage {
  role: 'system' | 'user' | 'assistant' | 'tool' | 'developer';
  content: unknown;
  tool_calls?: Array<{
    id: string;
    type: 'function';
    function: { name: string; arguments: string };
  }>;
  tool_call_id?: string;
  [key: string]: unknown;
}

export interface ServerRequestInfo {
  /** 0-based index of this chat completion request. */
  index: number;
  body: ChatCompletionRequest;
}

export type ServerTurn =
  | string
  | ServerReply
  | ((request: ServerRequestInfo) => string | ServerReply);

/** A list of turns (one per request, in order), or one function answering every request. */
export type ServerScript =
  | readonly ServerTurn[]
  | ((request: ServerRequestInfo) => string | ServerReply);

export interface OpenAICompatibleServerOptions {
  /** Requests served before the server answers 429 to everything (a runaway loop stops). Default 1,000. */
  maxRequests?: number;
}

export interface OpenAICompatibleServer {
  /** `http://127.0.0.1:<port>/v1`: pass it as `baseURL` to an OpenAI-compatible provider. */
  readonly baseURL: string;
  /** Every chat completion request body, in arrival order (including ones answered with errors). */
  readonly requests: ChatCompletionRequest[];
  close(): Promise<void>;
}

/**
 * A loopback OpenAI-compatible chat completions server that answers from a script — the
 * real HTTP + SSE path of `@ai-sdk/openai-compatible` (and of Ollama, vLLM, LM Studio),
 * without a model. Bound to 127.0.0.1 on a free port; `close()` it in `afterAll`. The
 * server is unref'd, so a forgotten `close()` does not keep the process alive.
 */
export async function startOpenAICompatibleServer(
  script: ServerScript,
  options: OpenAICompatibleServerOptions = {},
): Promise<OpenAICompatibleServer> {
  const maxRequests = options.maxRequests ?? 1_000;
  const requests: ChatCompletionRequest[] = [];
  let ids = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      req.resume();
      sendError(
        res,
        404,
        `No route for ${req.method} ${path}. This server serves POST /v1/chat/completions.`,
        'not_found',
      );
      return;
    }
    let body: ChatCompletionRequest;
    try {
      body = parseRequest(await readBody(req));
    } catch (error) {
      sendError(
        res,
        400,
        error instanceof Error ? error.message : String(error),
        'invalid_request_error',
      );
      return;
    }
    const index = requests.length;
    requests.push(body);
    if (index >= maxRequests) {
      sendError(
        res,
        429,
        `openai-compatible test server: more than ${maxRequests} requests; refusing the rest.`,
        'rate_limit',
      );
      return;
    }

    let reply: ServerReply;
    try {
      const turn = scriptTurn(script, { index, body });
      reply = typeof turn === 'string' ? { text: turn } : turn;
    } catch (error) {
      if (error instanceof ScriptError) sendError(res, error.status, error.message, error.type);
      else
        sendError(
          res,
          500,
          `openai-compatible test server: the script threw: ${String(error)}`,
          'script_error',
        );
      return;
    }

    if (await clientLeftWhileHeld(reply, res)) return;
    if (reply.error) {
      const { status, message, type, code, headers } = reply.error;
      sendError(res, status, message, type ?? 'server_error', code, headers);
      return;
    }

    const completion = buildCompletion(reply, body, `chatcmpl-${++ids}`, () => `call_${++ids}`);
    if (body.stream === true) {
      const { disconnectAfterChunks: cutAfter } = reply;
      streamCompletion(res, completion, body.stream_options?.include_usage === true, cutAfter);
    } else if (reply.disconnectAfterChunks !== undefined) {
      res.destroy();
    } else {
      sendJson(res, 200, completionJson(completion));
    }
  };

  // Loaded when a server starts: node:http costs tens of milliseconds to load, and a program
  // that imports @agate/testing for its scripted model (an agent file under `agate run`) never
  // starts one.
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        sendError(res, 500, `openai-compatible test server: ${String(error)}`, 'server_error');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.unref();
  const { port } = server.address() as AddressInfo;

  let closed: Promise<void> | undefined;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive sockets from fetch would otherwise hold close() open.
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

/** The script's answer to a request; a ScriptError when the script has no turn for it. */
function scriptTurn(script: ServerScript, info: ServerRequestInfo): ServerReply | string {
  if (typeof script === 'function') return script(info);
  const turn = script[info.index];
  if (turn === undefined) {
    throw new ScriptError(
      500,
      `openai-compatible test server: the script has ${script.length} turn${script.length === 1 ? '' : 's'} ` +
        `but request #${info.index + 1} arrived. Add turns to the script.`,
      'script_exhausted',
    );
  }
  return typeof turn === 'function' ? turn(info) : turn;
}

class ScriptError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
  ) {
    super(message);
    this.name = 'ScriptError';
  }
}

interface Completion {
  id: string;
  model: string;
  created: number;
  text: string;
  reasoning: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finishReason: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

function buildCompletion(
  reply: ServerReply,
  body: ChatCompletionRequest,
  id: string,
  nextCallId: () => string,
): Completion {
  const toolCalls = (reply.toolCalls ?? []).map((call) => ({
    id: call.toolCallId ?? nextCallId(),
    name: call.toolName,
    arguments: typeof call.input === 'string' ? call.input : JSON.stringify(call.input ?? {}),
  }));
  const text = reply.text ?? '';
  const reasoning = reply.reasoning ?? '';
  const prompt = reply.usage?.promptTokens ?? Math.ceil(JSON.stringify(body.messages).length / 4);
  const outputChars =
    text.length +
    reasoning.length +
    toolCalls.reduce((n, c) => n + c.name.length + c.arguments.length, 0);
  const completion = reply.usage?.completionTokens ?? Math.ceil(outputChars / 4);
  return {
    id,
    model: body.model,
    created: Math.floor(Date.now() / 1000),
    text,
    reasoning,
    toolCalls,
    finishReason: reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
    },
  };
}

function completionJson(c: Completion): Record<string, unknown> {
  return {
    id: c.id,
    object: 'chat.completion',
    created: c.created,
    model: c.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: c.text === '' && c.toolCalls.length > 0 ? null : c.text,
          ...(c.reasoning !== '' ? { reasoning_content: c.reasoning } : {}),
          ...(c.toolCalls.length > 0
            ? {
                tool_calls: c.toolCalls.map((t) => ({
                  id: t.id,
                  type: 'function',
                  function: { name: t.name, arguments: t.arguments },
                })),
              }
            : {}),
        },
        finish_reason: c.finishReason,
      },
    ],
    usage: c.usage,
  };
}

/**
 * The OpenAI streaming shape: a role chunk, content deltas, tool calls split into an opening
 * delta (index, id, name) and argument fragments, a finish chunk, then (when asked for with
 * `stream_options.include_usage`) a usage chunk with empty `choices`, then `[DONE]`.
 */
function streamCompletion(
  res: ServerResponse,
  c: Completion,
  includeUsage: boolean,
  disconnectAfterChunks?: number,
): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  let chunks = 0;
  let cut = false;
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => {
    if (cut) return;
    if (disconnectAfterChunks !== undefined && chunks++ >= disconnectAfterChunks) {
      // After what was written reaches the client: an abrupt close, with no end of the stream.
      cut = true;
      res.socket?.destroySoon();
      return;
    }
    const data = {
      id: c.id,
      object: 'chat.completion.chunk',
      created: c.created,
      model: c.model,
      choices,
      ...extra,
    };
    res.write(`data: ${JSON.stringify(data)}\n\n`);
  };
  const delta = (d: Record<string, unknown>, finishReason: string | null = null) =>
    chunk([{ index: 0, delta: d, finish_reason: finishReason }]);

  delta({ role: 'assistant', content: '' });
  for (const piece of pieces(c.reasoning)) delta({ reasoning_content: piece });
  for (const piece of pieces(c.text)) delta({ content: piece });
  c.toolCalls.forEach((call, index) => {
    delta({
      tool_calls: [
        { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
      ],
    });
    for (const part of fragments(call.arguments, 8)) {
      delta({ tool_calls: [{ index, function: { arguments: part } }] });
    }
  });
  delta({}, c.finishReason);
  if (includeUsage) chunk([], { usage: c.usage });
  if (cut) return;
  res.write('data: [DONE]\n\n');
  res.end();
}

/** Word-sized pieces, so clients see several deltas. */
function pieces(text: string): string[] {
  return text === '' ? [] : (text.match(/\S+\s*|\s+/g) ?? [text]);
}

function fragments(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(value);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  type: string,
  code?: string | number,
  headers?: Record<string, string>,
): void {
  sendJson(res, status, { error: { message, type, param: null, code: code ?? null } }, headers);
}

const MAX_BODY_BYTES = 32 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new Error(`Request body over ${MAX_BODY_BYTES} bytes.`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseRequest(text: string): ChatCompletionRequest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('The request body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error('The request body must be a JSON object.');
  }
  const body = value as Record<string, unknown>;
  if (typeof body.model !== 'string') throw new Error('"model" must be a string.');
  if (!Array.isArray(body.messages)) throw new Error('"messages" must be an array.');
  return body as ChatCompletionRequest;
}

/** Waits out a reply's `delayMs`, then its `until`; true when the client went away first. */
async function clientLeftWhileHeld(reply: ServerReply, res: ServerResponse): Promise<boolean> {
  if (reply.delayMs && (await waitOrClose(reply.delayMs, res))) return true;
  if (reply.until === undefined) return false;
  return waitOrClose(
    Promise.resolve(reply.until).catch(() => {}),
    res,
  );
}

/**
 * Waits `ms` milliseconds, or for a promise to settle; true when the client went away first
 * (then nothing is sent, and no timer is left behind).
 */
function waitOrClose(wait: number | Promise<unknown>, res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const finish = (gone: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      res.off('close', onClose);
      resolve(gone);
    };
    const onClose = () => finish(true);
    res.once('close', onClose);
    if (typeof wait === 'number') timer = setTimeout(() => finish(false), wait);
    else void wait.then(() => finish(false));
  });
}
