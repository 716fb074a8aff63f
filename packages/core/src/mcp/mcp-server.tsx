import { createElement, type ReactNode, useMemo } from 'react';
import { type ToolOptions, Tools } from '../components/tools.js';
import { useSessionContext } from '../runtime/session-context.js';
import { McpConnection, type McpConnectionConfig } from './connection.js';
import { McpConfigError } from './mcp-errors.js';
import { mountedName, type ToolSelection } from './tool-names.js';

/** A call's time limit when neither `toolOptions` nor `<McpServer timeoutMs>` gives one. */
export const DEFAULT_MCP_TIMEOUT_MS = 60_000;
/** How long a server has to start and answer the MCP handshake, by default. */
export const DEFAULT_MCP_CONNECT_TIMEOUT_MS = 30_000;

/**
 * Props of `<McpServer>` shared by both transports: its name, which tools to mount and their
 * limits.
 */
export interface McpServerCommon extends ToolSelection {
  /** Names the server in errors and events; the connection's key in the session. */
  name: string;
  /** Per tool (the server's name, or the mounted one): what `<Tools toolOptions>` takes. */
  toolOptions?: Readonly<Record<string, ToolOptions>>;
  /** Each call's time limit (ms), unless `toolOptions` gives one. Default 60 000. */
  timeoutMs?: number;
  /** How long the server has to start and answer the handshake (ms). Default 30 000. */
  connectTimeoutMs?: number;
}

/** A server started as a child process, spoken to over stdio. */
export interface McpStdioServerProps extends McpServerCommon {
  /** The program that starts the server (spoken to over stdio). */
  command: string;
  /** Its arguments. */
  args?: readonly string[];
  /** Variables for the server, added to PATH, HOME, USER, SHELL, TERM, LOGNAME, TMPDIR, LANG. */
  env?: Readonly<Record<string, string>>;
  /** Where it runs. */
  cwd?: string;
  /** Not with `command`: for a server reached over HTTP. */
  url?: never;
  /** Not with `command`: for a server reached over HTTP. */
  headers?: never;
}

/** A server reached over Streamable HTTP (the SSE transport when the server only has that). */
export interface McpHttpServerProps extends McpServerCommon {
  /** The server's Streamable HTTP endpoint. */
  url: string;
  /** Sent with every request (an authorization header, say). */
  headers?: Readonly<Record<string, string>>;
  /** Not with `url`: for a server started as a process. */
  command?: never;
  /** Not with `url`: for a server started as a process. */
  args?: never;
  /** Not with `url`: for a server started as a process. */
  env?: never;
  /** Not with `url`: for a server started as a process. */
  cwd?: never;
}

/** Props of `<McpServer>`: a server started as a process (stdio) or reached over HTTP. */
export type McpServerProps = McpStdioServerProps | McpHttpServerProps;

/**
 * Mounts an MCP server's tools like `<Tools>`. The connection opens at the first tick that
 * renders this (before its model call), stays open for the run and closes when `run()` ends
 * (or on `session.close()` / `dispose()`). A server that fails to start, dies or stops
 * answering ends the run with status `error`; the next `run()` connects again.
 */
export function McpServer(props: McpServerProps): ReactNode {
  // The state context: re-rendered every tick, so the connection's tools are read each time.
  const { session } = useSessionContext('<McpServer>');
  const { config, fingerprint } = useMemo(() => {
    const made = connectionConfig(props);
    return { config: made, fingerprint: JSON.stringify(made) };
  }, [props]);
  const connection = session.resources.use(
    `mcp:${props.name}`,
    () => new McpConnection(config, fingerprint),
    (open) => open.fingerprint === fingerprint,
  );
  const tools = connection.tools;
  // The same element while the server's tool list and the props are unchanged: React then
  // skips the tools' subtree, so a tick does not render and compile every tool again.
  return useMemo(
    () =>
      tools === undefined
        ? null
        : createElement(Tools, { tools, toolOptions: optionsFor(tools, props) }),
    [tools, props],
  );
}

/** Checks the props and makes the connection's configuration (plain JSON: its fingerprint). */
export function connectionConfig(props: McpServerProps): McpConnectionConfig {
  const { name, command, url } = props;
  if (typeof name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
    throw new McpConfigError(
      `<McpServer name=${JSON.stringify(name)}> needs a name of 1-64 letters, digits, "_" or "-".`,
    );
  }
  if ((command === undefined) === (url === undefined)) {
    throw new McpConfigError(
      `<McpServer name="${name}"> needs either \`command\` (a stdio server) or \`url\` ` +
        '(a Streamable HTTP server), not both and not neither.',
    );
  }
  for (const key of ['timeoutMs', 'connectTimeoutMs'] as const) {
    const value = props[key];
    if (
      value !== undefined &&
      !(typeof value === 'number' && value > 0 && Number.isFinite(value))
    ) {
      throw new McpConfigError(
        `<McpServer name="${name}" ${key}=${JSON.stringify(value)}> needs a number of milliseconds > 0.`,
      );
    }
  }
  const selection: ToolSelection = {
    ...(props.include !== undefined ? { include: [...props.include] } : {}),
    ...(props.exclude !== undefined ? { exclude: [...props.exclude] } : {}),
    ...(props.prefix !== undefined ? { prefix: props.prefix } : {}),
  };
  const limits = {
    timeoutMs: props.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS,
    connectTimeoutMs: props.connectTimeoutMs ?? DEFAULT_MCP_CONNECT_TIMEOUT_MS,
  };
  if (command !== undefined) {
    if (typeof command !== 'string' || command === '') {
      throw new McpConfigError(`<McpServer name="${name}"> command must be a non-empty string.`);
    }
    return {
      name,
      ...selection,
      ...limits,
      stdio: {
        command,
        ...(props.args !== undefined ? { args: [...props.args] } : {}),
        ...(props.env !== undefined ? { env: { ...props.env } } : {}),
        ...(props.cwd !== undefined ? { cwd: props.cwd } : {}),
      },
    };
  }
  try {
    const parsed = new URL(url as string);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error();
  } catch {
    throw new McpConfigError(
      `<McpServer name="${name}" url=${JSON.stringify(url)}> needs an http:// or https:// URL.`,
    );
  }
  return {
    name,
    ...selection,
    ...limits,
    http: { url: url as string, ...(props.headers ? { headers: { ...props.headers } } : {}) },
  };
}

/**
 * `toolOptions` by mounted name, each with the server's time limit unless it has its own. An
 * entry may use the server's name or the mounted one; entries for tools the server does not
 * list (now) are left out, since a server's list may change.
 */
function optionsFor(
  tools: Readonly<Record<string, unknown>>,
  props: McpServerProps,
): Record<string, ToolOptions> {
  const timeoutMs = props.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS;
  const byMounted = new Map<string, ToolOptions>();
  for (const [key, options] of Object.entries(props.toolOptions ?? {})) {
    const mounted = Object.hasOwn(tools, key) ? key : mountedName(key, props.prefix);
    byMounted.set(mounted, options);
  }
  const out: Record<string, ToolOptions> = {};
  for (const name of Object.keys(tools)) out[name] = { timeoutMs, ...byMounted.get(name) };
  return out;
}
