import type { Tool as SdkTool } from 'ai';
import { InvalidElementError } from '../components/render-errors.js';
import type { ToolGuardProps } from '../components/tool.js';
import type { CompiledTool } from './compiled-context.js';
import { type HostElement, type HostProps, sameProps } from './host-tree.js';
import { givesWayFor } from './tool-origin.js';
import { declaredToolPropsVersion, toolGuardProps } from './tool-props.js';

/**
 * The compiled tool of a `<Tool>` host node. A tool compiles from its props alone, so one
 * `CompiledTool` serves every node with the same props, in every session of the process: a
 * server that makes a session per request with tools defined once compiles each tool once, and
 * every later step that caches by the compiled tool's identity (the AI SDK tool set, the tool
 * index) is shared too. Sessions share these objects read-only.
 */
export function compileTool(node: HostElement): CompiledTool {
  const { props } = node;
  // React hands a host node a new props object only when its element changed: the usual tick
  // finds the tool on the node. Kept on the node, not in a WeakMap by props: a run from scratch
  // sets one per tool, and a WeakMap's set cost more than compiling (issue 51 item 2).
  const known = node.compiled;
  const version = declaredToolPropsVersion();
  if (known !== undefined && known.props === props && known.version === version) return known.tool;
  const tool = sameContent(props) ?? compileToolProps(node);
  node.compiled = { props, tool, version };
  return tool;
}

interface Compiled {
  tool: CompiledTool;
  /** The declared guard props when it was compiled (a prop declared later changes `guard`). */
  version: number;
}

/**
 * Compiled tools by what they run (the `execute` function, else the ready AI SDK tool), then by
 * name, then their props compared one by one. Keyed by that object, so an entry lives only as
 * long as the tool's own code does (an `execute` made per session goes with its session); by
 * name too, since tools may share one `execute` (a dispatcher), and a name's list is bounded
 * for trees that render a new description every tick.
 */
const byContent = new WeakMap<object, Map<unknown, { props: HostProps; compiled: Compiled }[]>>();
const PER_NAME = 8;
const MAX_NAMES = 256;

function contentKey(props: HostProps): object | undefined {
  const key = props.execute ?? props.tool;
  return typeof key === 'function' || (typeof key === 'object' && key !== null) ? key : undefined;
}

function sameContent(props: HostProps): CompiledTool | undefined {
  const key = contentKey(props);
  if (key === undefined) return undefined;
  const version = declaredToolPropsVersion();
  for (const entry of byContent.get(key)?.get(props.name) ?? []) {
    if (entry.compiled.version === version && sameProps(entry.props, props)) {
      return entry.compiled.tool;
    }
  }
  return undefined;
}

function remember(props: HostProps, tool: CompiledTool): void {
  const key = contentKey(props);
  if (key === undefined) return;
  let byName = byContent.get(key);
  if (byName === undefined) {
    byName = new Map();
    byContent.set(key, byName);
  }
  let entries = byName.get(props.name);
  if (entries === undefined) {
    // Bounded too: a tree that names its tools anew every tick would otherwise grow it.
    if (byName.size >= MAX_NAMES) byName.clear();
    entries = [];
    byName.set(props.name, entries);
  }
  if (entries.length >= PER_NAME) entries.shift();
  entries.push({ props, compiled: { tool, version: declaredToolPropsVersion() } });
}

function compileToolProps(node: HostElement): CompiledTool {
  const { name, description, input, execute, tool } = node.props as {
    name?: unknown;
    description?: unknown;
    input?: unknown;
    execute?: unknown;
    tool?: SdkTool;
  };
  if (typeof name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
    throw new InvalidElementError(
      `<Tool name=${JSON.stringify(name)}> needs a name of 1-64 letters, digits, "_" or "-" ` +
        '(the limit most providers enforce).',
    );
  }
  const inputSchema = (input ?? tool?.inputSchema) as SdkTool['inputSchema'] | undefined;
  if (inputSchema === undefined) {
    throw new InvalidElementError(
      `<Tool name="${name}"> needs an \`input\` schema (for example z.object({})) or a ready AI SDK \`tool\`.`,
    );
  }
  const run = (execute ?? tool?.execute) as CompiledTool['execute'] | undefined;
  const text = (description ?? tool?.description) as string | undefined;
  // An AI SDK tool's own `needsApproval` is honoured as the prop is (the prop wins).
  const sdkApproval = (tool as { needsApproval?: unknown } | undefined)?.needsApproval;
  const guard = guardProps(
    name,
    node.props.needsApproval === undefined && sdkApproval !== undefined
      ? { ...node.props, needsApproval: sdkApproval }
      : node.props,
  );
  const toModelOutput = input === undefined ? tool?.toModelOutput : undefined;
  const server = input === undefined ? givesWayFor(tool) : undefined;
  const compiled: CompiledTool = {
    name,
    ...(text !== undefined ? { description: text } : {}),
    inputSchema,
    ...(run !== undefined ? { execute: run } : {}),
    ...(toModelOutput !== undefined ? { toModelOutput } : {}),
    source: 'component',
    ...(guard !== undefined ? { guard } : {}),
    ...(server !== undefined ? { givesWay: server } : {}),
  };
  remember(node.props, compiled);
  return compiled;
}

/** The `<Tool>` props guards read (declared by their families), checked where they are written. */
function guardProps(name: string, props: Record<string, unknown>): ToolGuardProps | undefined {
  return toolGuardProps(name, props) as ToolGuardProps | undefined;
}
