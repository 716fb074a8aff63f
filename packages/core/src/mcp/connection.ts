import type { JSONRPCMessage, MCPClient, MCPTransport } from '@ai-sdk/mcp';
import type { Tool as SdkTool, ToolSet } from 'ai';
import { reportsErrors, throwIfErrorResult } from '../components/tools.js';
import { errorMessage } from '../ground/thrown.js';
import { markGivesWay } from '../renderer/tool-origin.js';
import type { SessionResource } from '../runtime/resources.js';
import { ToolTimeoutError } from '../runtime/tool-limits.js';
import type { ClosableFetch } from './closable-fetch.js';
import { McpServerError } from './mcp-errors.js';
import { type StdioServerConfig, StdioTransport } from './stdio-transport.js';
import { isSelected, mountedName, type ToolSelection } from './tool-names.js';

/** How to reach one MCP server and which of its tools to mount. */
export interface McpConnectionConfig extends ToolSelection {
  name: string;
  /** stdio: the server's command (with `args`, `env`, `cwd`). */
  stdio?: StdioServerConfig;
  /** Streamable HTTP (SSE as fallback): the endpoint and extra headers. */
  http?: { url: string; headers?: Readonly<Record<string, string>> };
  /** How long the server has to answer the handshake. */
  connectTimeoutMs: number;
  /** The time limit of its calls: after a call times out, the server must answer a check within it (5 s at most). */
  timeoutMs: number;
}

/** How long a server that let a call time out has to answer a check before it counts as hung. */
const MAX_CHECK_MS = 5_000;
/** How long closing an HTTP session (its DELETE) may take before its sockets are cut. */
const CLOSE_HTTP_MS = 2_000;

/**
 * One connection to one MCP server for one run, through the AI SDK's MCP client: opened at the
 * first tick that renders its `<McpServer>`, closed when the run ends. It keeps the server's
 * tools (filtered, renamed) and notices what would otherwise hang or mislead a run: a server
 * that exits, one that stops answering, a tool list that changed.
 */
export class McpConnection implements SessionResource {
  private client: MCPClient | undefined;
  private stdio: StdioTransport | undefined;
  private fetcher: ClosableFetch | undefined;
  private opening: Promise<void> | undefined;
  private mounted: ToolSet | undefined;
  /** Each mounted tool's definition as the server listed it (JSON), to tell a real change. */
  private definitions = new Map<string, string>();
  private stale = false;
  private closing = false;
  private failure: McpServerError | undefined;
  private check: Promise<void> | undefined;
  /** `sse` once the server refused Streamable HTTP and the old SSE transport answered. */
  transport: 'stdio' | 'http' | 'sse' | undefined;

  constructor(
    readonly config: McpConnectionConfig,
    /** Identifies the configuration: a different one opens a new connection. */
    readonly fingerprint: string,
  ) {}

  /** The mounted tools, by the names the model sees; undefined until connected. */
  get tools(): ToolSet | undefined {
    return this.mounted;
  }

  /** `command arg1 arg2`, or the URL: how error messages name the server. */
  get endpoint(): string {
    const { stdio, http } = this.config;
    if (stdio !== undefined) {
      return [stdio.command, ...(stdio.args ?? [])]
        .map((part) => (/[\s"']/.test(part) ? JSON.stringify(part) : part))
        .join(' ');
    }
    return http?.url ?? '';
  }

  /** The process id of a running stdio server (for tests and diagnostics). */
  get pid(): number | undefined {
    return this.stdio?.pid;
  }

  prepare(signal: AbortSignal): boolean | Promise<boolean> {
    // Open, answering and unchanged (every tick after the first, as a rule): nothing to wait for.
    if (
      this.client !== undefined &&
      this.failure === undefined &&
      this.check === undefined &&
      !this.stale
    ) {
      return false;
    }
    return this.prepareAsync(signal);
  }

  private async prepareAsync(signal: AbortSignal): Promise<boolean> {
    if (this.failure !== undefined) throw this.failure;
    if (this.client === undefined) {
      this.opening ??= this.open(signal);
      try {
        await this.opening;
      } finally {
        this.opening = undefined;
      }
      return true;
    }
    if (this.check !== undefined) await this.check;
    if (this.failure !== undefined) throw this.failure;
    if (this.stale) {
      this.stale = false;
      // The same tools as before (a server that announces a change it did not make to the
      // selected tools): nothing to render again, and the tick's caches stay valid.
      return this.list();
    }
    return false;
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.opening?.catch(() => {});
    const client = this.client;
    this.client = undefined;
    try {
      if (client !== undefined) {
        // An HTTP close tells the server (DELETE); a hung server must not hold the run's end.
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          client.close().catch(() => {}),
          new Promise((resolve) => {
            timer = setTimeout(resolve, CLOSE_HTTP_MS);
          }),
        ]);
        clearTimeout(timer);
      }
    } finally {
      await this.stdio?.close();
      await this.fetcher?.close();
    }
  }

  private async open(signal: AbortSignal): Promise<void> {
    const { createMCPClient } = await import('@ai-sdk/mcp');
    const base = {
      clientName: 'agate',
      initializationOptions: { signal, timeout: this.config.connectTimeoutMs },
      // Notifications the client does not take are handled in `listen`; nothing else to report.
      onUncaughtError: () => {},
    };
    let client: MCPClient;
    let transport: MCPTransport | undefined;
    try {
      if (this.config.stdio !== undefined) {
        const stdio = new StdioTransport(this.config.stdio);
        this.stdio = stdio;
        transport = stdio;
        this.transport = 'stdio';
        client = await createMCPClient({ ...base, transport: stdio });
      } else {
        const { url, headers } = this.config.http ?? { url: '' };
        // Loaded here, not at the top: undici (and node:http below it) costs tens of
        // milliseconds to load, and only an <McpServer url> needs it (`agate run` starts faster
        // without it).
        this.fetcher = (await import('./closable-fetch.js')).closableFetch();
        const http = {
          url,
          ...(headers ? { headers: { ...headers } } : {}),
          fetch: this.fetcher.fetch,
        };
        try {
          this.transport = 'http';
          client = await createMCPClient({ ...base, transport: { type: 'http', ...http } });
        } catch (error) {
          // A server from before Streamable HTTP answers its POST with 4xx: try the SSE transport.
          const status = (error as { statusCode?: unknown }).statusCode;
          if (signal.aborted || !(status === 400 || status === 404 || status === 405)) throw error;
          this.transport = 'sse';
          client = await createMCPClient({ ...base, transport: { type: 'sse', ...http } });
        }
        transport = (client as unknown as { transport?: MCPTransport }).transport;
      }
    } catch (error) {
      await this.stdio?.close();
      await this.fetcher?.close();
      signal.throwIfAborted();
      throw this.startupError(error);
    }
    this.client = client;
    this.listen(transport);
    if (this.closing) return;
    await this.list();
  }

  /** What went wrong at startup, in the words a person needs. */
  private startupError(error: unknown): McpServerError {
    const message = errorMessage(error);
    const exit = this.stdio?.exit;
    let what: string;
    if (/timed out/i.test(message)) {
      what = `did not answer the MCP handshake within ${this.config.connectTimeoutMs} ms`;
    } else if (exit !== undefined && (exit.code !== null || exit.signal !== null)) {
      what = `exited during startup (${describeExit(exit)})`;
    } else if (this.stdio !== undefined && exit !== undefined) {
      what = `could not be started: ${message}`;
    } else {
      what = `failed to connect: ${message}`;
    }
    return new McpServerError(this.config.name, this.endpoint, what, this.stderrTail(), {
      cause: error,
    });
  }

  private stderrTail(): string {
    return this.stdio?.stderrTail ?? '';
  }

  /**
   * Takes server notifications before the AI SDK's client (which does not handle them) and
   * learns of a connection that ended. Its handlers are set on the transport when the client
   * is made: ours for stdio; for HTTP, the transport the client made (not exported by the AI
   * SDK, reached on the client). Without one, list changes are not followed.
   */
  private listen(transport: MCPTransport | undefined): void {
    if (transport === undefined) return;
    const onmessage = transport.onmessage;
    const onclose = transport.onclose;
    transport.onmessage = (message: JSONRPCMessage) => {
      if ('method' in message && !('id' in message)) {
        if (message.method === 'notifications/tools/list_changed') this.stale = true;
        return;
      }
      onmessage?.(message);
    };
    transport.onclose = () => {
      if (!this.closing && this.stdio !== undefined) {
        const exit = this.stdio.exit;
        this.fail(`exited (${exit === undefined ? 'connection closed' : describeExit(exit)})`);
      }
      onclose?.();
    };
  }

  private fail(what: string, cause?: unknown): McpServerError {
    this.failure ??= new McpServerError(
      this.config.name,
      this.endpoint,
      what,
      this.stderrTail(),
      cause === undefined ? undefined : { cause },
    );
    return this.failure;
  }

  /**
   * Lists the server's tools (every page) and mounts the selected ones; true when the mounted
   * set changed. A tool whose definition is unchanged keeps its object, and an unchanged set
   * keeps its object, so a re-list that changes nothing costs the ticks after it nothing.
   */
  private async list(): Promise<boolean> {
    const client = this.client;
    if (client === undefined) return false;
    const options = { timeout: this.config.timeoutMs };
    let definitions: Awaited<ReturnType<MCPClient['listTools']>>;
    try {
      definitions = await client.listTools({ options });
      const all = [...definitions.tools];
      while (definitions.nextCursor != null) {
        definitions = await client.listTools({
          params: { cursor: definitions.nextCursor },
          options,
        });
        all.push(...definitions.tools);
      }
      definitions = { ...definitions, tools: all };
    } catch (error) {
      throw this.failure ?? this.fail(`failed to list its tools: ${errorMessage(error)}`, error);
    }
    const selected = definitions.tools.filter((tool) => isSelected(tool.name, this.config));
    const made = client.toolsFromDefinitions({ ...definitions, tools: selected });
    const previous = this.mounted;
    const mounted: ToolSet = {};
    const json = new Map<string, string>();
    let changed = previous === undefined;
    for (const definition of selected) {
      const tool = made[definition.name];
      if (tool === undefined) continue;
      // Two server names may map to one mounted name ("a.b", "a_b"): the later gets a suffix.
      const base = mountedName(definition.name, this.config.prefix);
      let mountedAs = base;
      for (let n = 2; Object.hasOwn(mounted, mountedAs); n++) {
        mountedAs = `${base.slice(0, 60)}_${n}`;
      }
      const listed = JSON.stringify(definition);
      const kept = previous?.[mountedAs];
      if (kept !== undefined && this.definitions.get(mountedAs) === listed) {
        mounted[mountedAs] = kept;
      } else {
        // Its name is the server's choice: it gives way to any other tool of that name.
        mounted[mountedAs] = markGivesWay(this.guarded(tool as SdkTool), this.config.name);
        changed = true;
      }
      json.set(mountedAs, listed);
    }
    if (!changed && Object.keys(previous ?? {}).length === json.size) return false;
    this.mounted = mounted;
    this.definitions = json;
    return true;
  }

  /**
   * The tool with its failures explained: a call cut off because the server died says so
   * (with its stderr), a transport failure marks the server failed, and a call that timed
   * out makes the server answer a check, so a hung server ends the run instead of each call.
   */
  private guarded(tool: SdkTool): SdkTool {
    const execute = tool.execute;
    if (execute === undefined) return tool;
    return reportsErrors({
      ...tool,
      execute: async (input: unknown, options: Parameters<typeof execute>[1]) => {
        let output: unknown;
        try {
          output = await execute(input as never, options);
        } catch (error) {
          if (this.failure !== undefined) throw this.failure;
          const signal = options?.abortSignal;
          if (signal?.aborted) {
            // The AI SDK's client rejects a call as its signal fires (it listens already), so
            // a timed-out call lands here at once, without a listener of our own per call.
            if (ToolTimeoutError.isInstance(signal.reason)) this.checkAnswers();
            throw error;
          }
          // A JSON-RPC error is the server's answer (a tool error); anything else is the link.
          if (typeof (error as { code?: unknown }).code !== 'number') {
            throw this.fail(`failed during a call: ${errorMessage(error)}`, error);
          }
          throw error;
        }
        // An `isError` result is the server's answer: a tool error, not a failed link.
        return throwIfErrorResult(output);
      },
    } as SdkTool);
  }

  private checkAnswers(): void {
    const client = this.client;
    if (client === undefined || this.check !== undefined) return;
    const limit = Math.min(this.config.timeoutMs, MAX_CHECK_MS);
    this.check = client
      .listTools({ options: { timeout: limit } })
      .then(
        () => {},
        () => {
          this.fail(
            `stopped answering (a call timed out, then a check got no answer within ${limit} ms)`,
          );
        },
      )
      .finally(() => {
        this.check = undefined;
      });
  }
}

function describeExit(exit: { code: number | null; signal: NodeJS.Signals | null }): string {
  if (exit.signal !== null) return `killed by ${exit.signal}`;
  return exit.code === null ? 'no exit code' : `exit code ${exit.code}`;
}
