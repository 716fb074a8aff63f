import type { ChildProcess } from 'node:child_process';
import type { JSONRPCMessage, MCPTransport } from '@ai-sdk/mcp';
import { serverEnvironment } from './server-environment.js';

/** How a stdio server is started (the `<McpServer command args env cwd>` props). */
export interface StdioServerConfig {
  command: string;
  args?: readonly string[];
  /** Added to the variables every server inherits (`serverEnvironment`): nothing else leaks. */
  env?: Readonly<Record<string, string>>;
  cwd?: string;
}

/** How the server's process ended, when it has. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const STDERR_TAIL_CHARS = 2_000;
/** A stdout line (one JSON-RPC message) longer than this is dropped: a server cannot fill memory. */
const MAX_LINE_BYTES = 64 * 1024 * 1024;
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
/** After SIGTERM, how long a server has to exit before SIGKILL. */
const TERM_GRACE_MS = 1_500;

/**
 * The MCP stdio transport for the AI SDK's MCP client, as `@ai-sdk/mcp`'s own but with what
 * the run's lifecycle needs: the tail of the server's stderr is kept for error messages, the
 * server runs in its own process group so a wrapper (`npx`, a shell) cannot leave children
 * behind, and `close()` resolves only once the whole group has exited (SIGTERM, then SIGKILL).
 */
export class StdioTransport implements MCPTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | undefined;
  /** The start of a stdout line not yet ended, in chunks (decoded once whole). */
  private partial: Buffer[] = [];
  private partialBytes = 0;
  /** Dropping the rest of a line past `maxLineBytes`, up to its end. */
  private skipping = false;
  private stderr = '';
  private exited: Promise<void> = Promise.resolve();
  /** Set once the process has exited. */
  exit: ProcessExit | undefined;

  constructor(
    private readonly config: StdioServerConfig,
    /** The longest stdout line kept (tests lower it). */
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {}

  /** The last lines the server wrote to stderr. */
  get stderrTail(): string {
    return this.stderr.trimEnd();
  }

  /** The process id while the server runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    // cross-spawn: on Windows, `npx` and other .cmd shims start as they do in a shell (Node's
    // own spawn needs a shell for them). Loaded with the first server, not with the package.
    const { default: spawn } = await import('cross-spawn');
    return new Promise((resolve, reject) => {
      const child = spawn(this.config.command, [...(this.config.args ?? [])], {
        env: serverEnvironment(process.env, this.config.env),
        ...(this.config.cwd !== undefined ? { cwd: this.config.cwd } : {}),
        stdio: ['pipe', 'pipe', 'pipe'],
        // Its own process group: close() ends the server and anything it started.
        detached: process.platform !== 'win32',
        windowsHide: true,
      });
      this.child = child;
      this.exited = new Promise((done) => {
        child.once('close', (code, signal) => {
          this.exit = { code, signal };
          this.child = undefined;
          done();
          this.onclose?.();
        });
      });
      child.once('spawn', () => resolve());
      child.once('error', (error) => {
        // Spawning failed (ENOENT, EACCES): no 'close' follows on every platform.
        this.exit ??= { code: null, signal: null };
        this.child = undefined;
        reject(error);
        this.onerror?.(error);
      });
      child.stdout?.on('data', (chunk: Buffer) => this.read(chunk));
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (chunk: string) => {
        this.stderr = (this.stderr + chunk).slice(-STDERR_TAIL_CHARS);
      });
      // A write to a server that just died: the 'close' handler reports it.
      child.stdin?.on('error', () => {});
    });
  }

  /**
   * Splits stdout into lines as bytes and decodes each whole line once, as the AI SDK's
   * transport does (decoding every chunk as it comes, `setEncoding`, costs a call's read about
   * twice). The start of a line that spans chunks waits as a list, joined when its end comes; a
   * line past `maxLineBytes` is dropped (noted with the stderr tail), not kept growing.
   */
  private read(chunk: Buffer): void {
    let from = 0;
    let newline = chunk.indexOf(NEWLINE);
    while (newline !== -1) {
      if (this.skipping) {
        // The end of a dropped line (its start was not kept): what follows is a new line.
        this.skipping = false;
      } else if (this.partialBytes + newline - from > this.maxLineBytes) {
        this.dropLine();
      } else {
        let bytes = chunk.subarray(from, newline);
        if (this.partial.length > 0) {
          bytes = Buffer.concat([...this.partial, bytes]);
          this.partial = [];
          this.partialBytes = 0;
        }
        this.line(bytes);
      }
      from = newline + 1;
      newline = chunk.indexOf(NEWLINE, from);
    }
    if (from === chunk.length || this.skipping) return;
    const rest = from === 0 ? chunk : chunk.subarray(from);
    if (this.partialBytes + rest.length > this.maxLineBytes) {
      // Its end is still to come: skipped when it does.
      this.dropLine();
      this.skipping = true;
      return;
    }
    this.partial.push(rest);
    this.partialBytes += rest.length;
  }

  /** A line past `maxLineBytes`: what was kept of it goes, noted. */
  private dropLine(): void {
    this.partial = [];
    this.partialBytes = 0;
    this.note(`a stdout line over ${this.maxLineBytes} bytes was dropped`);
  }

  private line(bytes: Buffer): void {
    const end = bytes.length;
    const text = bytes.toString(
      'utf8',
      0,
      end > 0 && bytes[end - 1] === CARRIAGE_RETURN ? end - 1 : end,
    );
    if (text.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = JSON.parse(text) as JSONRPCMessage;
    } catch {
      // Servers that print logs to stdout: not a message, and not worth failing over.
      this.note(text.slice(0, 200));
      return;
    }
    try {
      this.onmessage?.(message);
    } catch (error) {
      // A message the client cannot place (a reply to no request): reported, never thrown
      // out of the stream's data handler, where it would take the whole process down.
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** What the server wrote to stdout that is not a message, kept with its stderr tail. */
  private note(text: string): void {
    this.stderr = `${this.stderr}[stdout] ${text}\n`.slice(-STDERR_TAIL_CHARS);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (stdin === undefined || stdin === null || !stdin.writable) {
      return Promise.reject(new Error('the server process is not running'));
    }
    // Resolved once written, or once the pipe drains (as the AI SDK's transport does): the
    // write callback would wait for the kernel, a turn of the event loop per message.
    return new Promise((resolve) => {
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (child === undefined || child.pid === undefined) return;
    child.stdin?.end();
    this.kill(child.pid, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), TERM_GRACE_MS);
    });
    const ended = await Promise.race([this.exited, graceOver]);
    clearTimeout(timer);
    if (ended === 'late') {
      this.kill(child.pid, 'SIGKILL');
      await this.exited;
    } else {
      // The leader exited; whatever it started in its group goes with it.
      this.kill(child.pid, 'SIGKILL');
    }
  }

  private kill(pid: number, signal: NodeJS.Signals): void {
    try {
      if (process.platform === 'win32') process.kill(pid, signal);
      else process.kill(-pid, signal);
    } catch {
      // Already gone.
    }
  }
}
