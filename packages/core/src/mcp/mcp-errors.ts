import { AgateError, nameErrorClass } from '../ground/agate-error.js';

/** How an MCP server was reached, as error messages name it. */
export interface McpServerIdentity {
  /** The `<McpServer name>`. */
  name: string;
  /** `command arg1 arg2` for stdio, the URL for HTTP. */
  endpoint: string;
}

/**
 * An MCP server failed to start, died, or stopped answering. The run ends `error` with the
 * session state intact; the next `run()` starts a new connection. The message names the
 * server, its command (or URL) and the tail of its stderr.
 */
export class McpServerError extends AgateError {
  static {
    nameErrorClass(McpServerError, 'McpServerError');
  }
  constructor(
    /** The `<McpServer>`'s name. */
    readonly server: string,
    /** The command or URL the server was reached by. */
    readonly endpoint: string,
    what: string,
    /** The last lines the server wrote to stderr (stdio servers), '' when none. */
    readonly stderrTail: string,
    options?: { cause?: unknown },
  ) {
    const http = /^https?:/.test(endpoint);
    super(
      `MCP server "${server}" (${endpoint}) ${what}.` +
        (stderrTail !== ''
          ? `\nIts stderr ended with:\n${indent(stderrTail)}`
          : http
            ? ''
            : '\nIt wrote nothing to stderr.') +
        (http
          ? '\nCheck that the server answers at that URL; run() again starts a new connection.'
          : '\nCheck that the command runs on its own; run() again starts a new connection.'),
      options,
    );
    this.step = 'tool';
  }
}

/** An `<McpServer>` whose props cannot work (no command nor url, both, a bad name). */
export class McpConfigError extends AgateError {
  static {
    nameErrorClass(McpConfigError, 'McpConfigError');
  }
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  | ${line}`)
    .join('\n');
}
