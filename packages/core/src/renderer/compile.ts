import type { ModelMessage, Tool as SdkTool } from 'ai';
import type { ToolGuardProps } from '../components/tool.js';
import { checkCategoryProp } from '../gates/phase/category.js';
import { DuplicateToolError, InvalidElementError } from '../runtime/errors.js';
import type { CompiledTool, EphemeralBlock } from './compiled-context.js';
import type { HostContainer, HostElement, HostNode } from './host-tree.js';

/** The part of a CompiledContext that comes from the host tree alone. */
export interface CompiledTree {
  system: string;
  messages: ModelMessage[];
  tools: CompiledTool[];
  ephemeral: EphemeralBlock[];
}

/**
 * Walks the committed host tree once, in tree order. Text is gathered per block so that
 * a <Section> becomes a titled paragraph and whitespace stays predictable for snapshots.
 */
export function compileHostTree(container: HostContainer): CompiledTree {
  const out: CompiledTree = { system: '', messages: [], tools: [], ephemeral: [] };
  const systemBlocks: string[] = [];
  const toolNames = new Set<string>();

  const visit = (node: HostNode): void => {
    if (node.hidden === true) return;
    if (node.kind === 'text') {
      if (node.text.trim() !== '') systemBlocks.push(node.text.trim());
      return;
    }
    switch (node.type) {
      case 'agate-system':
        pushBlock(systemBlocks, textOf(node.children, 2));
        collectNested(node.children, '<System> or <Section>');
        return;
      case 'agate-section':
        pushBlock(systemBlocks, sectionText(node, 2));
        collectNested(node.children, '<System> or <Section>');
        return;
      case 'agate-message': {
        const message = compileMessage(node);
        // Like an empty <System>, an empty message adds nothing (providers reject empty text).
        if (message.content !== '') out.messages.push(message);
        // A <Tool> or <Ephemeral> written inside a message must not vanish silently.
        collectNested(node.children, 'a message');
        return;
      }
      case 'agate-timeline':
        // `concat`, not a push loop: the timeline is a frozen array, which V8 iterates slowly
        // and copies quickly, and it can hold thousands of messages.
        out.messages = out.messages.concat(node.props.messages as ModelMessage[]);
        return;
      case 'agate-tool':
        addTool(compileTool(node));
        return;
      case 'agate-ephemeral': {
        const text = textOf(node.children, 2);
        if (text !== '') {
          const source = node.props.source;
          out.ephemeral.push(typeof source === 'string' ? { text, source } : { text });
        }
        return;
      }
    }
  };

  // Tools and ephemeral blocks may sit inside <System>/<Section> or a message; text there is
  // already gathered.
  const collectNested = (children: HostNode[], where: string): void => {
    for (const child of children) {
      if (child.kind !== 'element' || child.hidden === true) continue;
      if (child.type === 'agate-tool') addTool(compileTool(child));
      else if (child.type === 'agate-ephemeral') visit(child);
      else if (child.type === 'agate-section' || child.type === 'agate-system')
        collectNested(child.children, where);
      else if (child.type === 'agate-message' || child.type === 'agate-timeline') {
        throw new InvalidElementError(
          `<${displayName(child)}> cannot be placed inside ${where}: ` +
            'messages belong at the top level of the agent tree, in timeline order.',
        );
      }
    }
  };

  const addTool = (tool: CompiledTool): void => {
    if (toolNames.has(tool.name)) {
      throw new DuplicateToolError(
        `Two <Tool> elements are named "${tool.name}". Tool names must be unique in a render; ` +
          'rename one or render it conditionally.',
      );
    }
    toolNames.add(tool.name);
    out.tools.push(tool);
  };

  for (const child of container.children) visit(child);
  out.system = systemBlocks.join('\n\n');
  return out;
}

function pushBlock(blocks: string[], text: string): void {
  if (text !== '') blocks.push(text);
}

function displayName(node: HostElement): string {
  return node.type.replace('agate-', '').replace(/^./, (c) => c.toUpperCase());
}

/** Text of a subtree: runs of text form paragraphs, sections are titled blocks. */
function textOf(children: HostNode[], headingLevel: number): string {
  const blocks: string[] = [];
  let run = '';
  const flush = () => {
    if (run.trim() !== '') blocks.push(run.trim());
    run = '';
  };
  for (const child of children) {
    if (child.hidden === true) continue;
    if (child.kind === 'text') {
      run += child.text;
    } else if (child.type === 'agate-section') {
      flush();
      pushBlock(blocks, sectionText(child, headingLevel));
    } else if (child.type === 'agate-system') {
      flush();
      pushBlock(blocks, textOf(child.children, headingLevel));
    }
    // Tools, messages, timelines and nested ephemeral blocks contribute no text here.
  }
  flush();
  return blocks.join('\n\n');
}

function sectionText(node: HostElement, level: number): string {
  const body = textOf(node.children, level + 1);
  const title = node.props.title;
  if (typeof title !== 'string' || title === '') return body;
  const heading = `${'#'.repeat(Math.min(level, 6))} ${title}`;
  return body === '' ? heading : `${heading}\n${body}`;
}

function compileMessage(node: HostElement): ModelMessage {
  const role = node.props.role;
  const text = textOf(node.children, 2);
  if (role === 'user' || role === 'assistant') return { role, content: text };
  if (role === 'system') {
    throw new InvalidElementError(
      '<Message role="system"> is not supported: put system text in <System> so it stays in the stable prefix.',
    );
  }
  throw new InvalidElementError(
    `<Message role=${JSON.stringify(role)}> has an unknown role; use "user" or "assistant".`,
  );
}

function compileTool(node: HostElement): CompiledTool {
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
  const guard = guardProps(name, node.props);
  return {
    name,
    ...(text !== undefined ? { description: text } : {}),
    inputSchema,
    ...(run !== undefined ? { execute: run } : {}),
    source: 'component',
    ...(guard !== undefined ? { guard } : {}),
  };
}

const GUARD_PROPS = ['category', 'shellCommand', 'evidence', 'writes', 'timeoutMs'] as const;

/** The `<Tool>` props guards read, checked where they are written. */
function guardProps(name: string, props: Record<string, unknown>): ToolGuardProps | undefined {
  let guard: Record<string, unknown> | undefined;
  for (const key of GUARD_PROPS) {
    if (props[key] === undefined) continue;
    guard ??= {};
    guard[key] = props[key];
  }
  if (guard === undefined) return undefined;
  checkCategoryProp(name, guard.category);
  const timeout = guard.timeoutMs;
  if (timeout !== undefined && (typeof timeout !== 'number' || !(timeout > 0))) {
    throw new InvalidElementError(
      `<Tool name="${name}" timeoutMs=${JSON.stringify(timeout)}> needs a number of milliseconds > 0.`,
    );
  }
  for (const key of ['shellCommand', 'writes'] as const) {
    if (guard[key] !== undefined && typeof guard[key] !== 'function') {
      throw new InvalidElementError(
        `<Tool name="${name}"> ${key} must be a function of the input.`,
      );
    }
  }
  return guard as ToolGuardProps;
}
