import type { ModelMessage } from 'ai';
import { DuplicateToolError, InvalidElementError } from '../components/render-errors.js';
import { compileTool } from './compile-tool.js';
import type { CompiledTool, EphemeralBlock } from './compiled-context.js';
import type { ContextLayout, SystemUnit } from './context-layout.js';
import {
  type HostContainer,
  type HostElement,
  type HostNode,
  hostShapeVersion,
} from './host-tree.js';
import type { LeftOutTool } from './tool-origin.js';

/** The part of a CompiledContext that comes from the host tree alone. */
export interface CompiledTree {
  system: string;
  messages: ModelMessage[];
  tools: CompiledTool[];
  ephemeral: EphemeralBlock[];
  /** Tools that gave way to another of the same name (an `<McpServer>`'s); absent when none did. */
  leftOut?: LeftOutTool[];
  /**
   * Recorded for a context budget (`compileHostTree(container, true)`): priorities and where
   * each message came from. `messages` is then left empty: the budget assembles them.
   */
  layout?: ContextLayout;
}

/**
 * The last compile of a container (without a layout): what it gave, and where its messages came
 * from in order (a compiled `<Message>`, or a `<Timeline>` node whose messages are read again).
 */
interface LastCompile {
  shape: number;
  system: string;
  tools: CompiledTool[];
  ephemeral: EphemeralBlock[];
  leftOut: LeftOutTool[] | undefined;
  sources: Array<ModelMessage | HostElement>;
}

const lastCompiles = new WeakMap<HostContainer, LastCompile>();

/**
 * Walks the committed host tree once, in tree order. Text is gathered per block so that
 * a <Section> becomes a titled paragraph and whitespace stays predictable for snapshots.
 *
 * A tree whose shape has not changed since its last compile (`hostShapeVersion`: nothing but
 * its timelines' messages changed, the usual tick) compiles to what it compiled to then, with
 * the timelines read again: its system text, tools and ephemeral blocks are reused, not walked.
 */
export function compileHostTree(container: HostContainer, record = false): CompiledTree {
  const shape = hostShapeVersion();
  if (!record) {
    const last = lastCompiles.get(container);
    if (last !== undefined && last.shape === shape) return fromLastCompile(last);
  }
  const sources: LastCompile['sources'] | undefined = record ? undefined : [];
  const out: CompiledTree = { system: '', messages: [], tools: [], ephemeral: [] };
  const systemBlocks: string[] = [];
  const toolNames = new Set<string>();
  const layout: ContextLayout | undefined = record
    ? {
        system: [],
        segments: [],
        ephemeral: [],
        rebuildSystem: (dropped) => systemTextOf(container, dropped),
      }
    : undefined;
  const recordSystem = (node: HostElement, text: string, parent?: number): number | undefined => {
    if (layout === undefined) return parent;
    const priority = priorityOf(node);
    if (priority === undefined) return parent;
    const unit: SystemUnit = { key: node, priority, text };
    if (parent !== undefined) unit.parent = parent;
    return layout.system.push(unit) - 1;
  };

  const visit = (node: HostNode): void => {
    if (node.hidden === true) return;
    if (node.kind === 'text') {
      if (node.text.trim() !== '') systemBlocks.push(node.text.trim());
      return;
    }
    switch (node.type) {
      case 'agate-system': {
        const text = textOf(node.children, 2);
        pushBlock(systemBlocks, text);
        collectNested(node.children, '<System> or <Section>', recordSystem(node, text), true);
        return;
      }
      case 'agate-section': {
        const text = sectionText(node, 2);
        pushBlock(systemBlocks, text);
        collectNested(node.children, '<System> or <Section>', recordSystem(node, text), true);
        return;
      }
      case 'agate-message': {
        const message = compileMessage(node);
        // Like an empty <System>, an empty message adds nothing (providers reject empty text).
        if (message.content !== '') {
          sources?.push(message);
          if (layout === undefined) out.messages.push(message);
          else layout.segments.push(messageSegment(node, message));
        }
        // A <Tool> or <Ephemeral> written inside a message must not vanish silently.
        collectNested(node.children, 'a message');
        return;
      }
      case 'agate-timeline': {
        const messages = node.props.messages as ModelMessage[];
        sources?.push(node);
        if (layout !== undefined) layout.segments.push(timelineSegment(node, messages));
        else out.messages = withTimeline(out.messages, messages);
        return;
      }
      case 'agate-tool':
        addTool(compileTool(node));
        return;
      case 'agate-ephemeral':
        addEphemeral(node, out, layout);
        return;
    }
  };

  // Tools and ephemeral blocks may sit inside <System>/<Section> or a message; text there is
  // already gathered.
  const collectNested = (
    children: HostNode[],
    where: string,
    unit?: number,
    inSystem = false,
  ): void => {
    for (const child of children) {
      if (child.kind !== 'element' || child.hidden === true) continue;
      if (child.type === 'agate-tool') addTool(compileTool(child));
      else if (child.type === 'agate-ephemeral') visit(child);
      else if (child.type === 'agate-section' || child.type === 'agate-system') {
        // Only sections of the system text are budget units; in a message the message is.
        const inner =
          inSystem && layout !== undefined && child.props.priority !== undefined
            ? recordSystem(child, sectionText(child, 2), unit)
            : unit;
        collectNested(child.children, where, inner, inSystem);
      } else if (child.type === 'agate-message' || child.type === 'agate-timeline') {
        throw new InvalidElementError(
          `<${displayName(child)}> cannot be placed inside ${where}: ` +
            'messages belong at the top level of the agent tree, in timeline order.',
        );
      }
    }
  };

  const addTool = (tool: CompiledTool): void => addCompiledTool(out, toolNames, tool);

  for (const child of container.children) visit(child);
  out.system = systemBlocks.join('\n\n');
  if (layout !== undefined) out.layout = layout;
  if (sources !== undefined) {
    const { system, tools, ephemeral, leftOut } = out;
    lastCompiles.set(container, { shape, system, tools, ephemeral, leftOut, sources });
  }
  return out;
}

/** Adds a compiled tool, once per name (duplicates either give way or are an error). */
function addCompiledTool(out: CompiledTree, toolNames: Set<string>, tool: CompiledTool): void {
  if (toolNames.has(tool.name)) {
    // A server's tool gives way to any other (the first server's to a later one's too).
    const at = out.tools.findIndex((t) => t.name === tool.name);
    const existing = out.tools[at]!;
    if (tool.givesWay !== undefined || existing.givesWay !== undefined) {
      const [kept, dropped] = tool.givesWay === undefined ? [tool, existing] : [existing, tool];
      out.tools[at] = kept;
      out.leftOut ??= [];
      out.leftOut.push({
        name: tool.name,
        server: dropped.givesWay!,
        takenBy: kept.givesWay === undefined ? 'a <Tool>' : `<McpServer name="${kept.givesWay}">`,
      });
      return;
    }
    throw new DuplicateToolError(
      `Two <Tool> elements are named "${tool.name}". Tool names must be unique in a render; ` +
        'rename one or render it conditionally.',
    );
  }
  toolNames.add(tool.name);
  out.tools.push(tool);
}

/** An <Ephemeral> with text becomes a block (and, when recording, a budget unit). */
function addEphemeral(
  node: HostElement,
  out: CompiledTree,
  layout: ContextLayout | undefined,
): void {
  const text = textOf(node.children, 2);
  if (text === '') return;
  const source = node.props.source;
  const priority = priorityOf(node);
  const block: EphemeralBlock = typeof source === 'string' ? { text, source } : { text };
  if (priority !== undefined) block.priority = priority;
  out.ephemeral.push(block);
  layout?.ephemeral.push(priority !== undefined ? { key: node, priority } : { key: node });
}

/**
 * `messages` then a timeline's. The timeline is a frozen array and can hold thousands of
 * messages: V8 (Node 24) copies a frozen array quickly only when it is spread on its own;
 * `concat` with it, a push loop, or spreading it after other items all leave the fast path
 * (3,000 messages: about 5 µs against 20-50 µs, every tick).
 */
function withTimeline(messages: ModelMessage[], timeline: readonly ModelMessage[]): ModelMessage[] {
  const copy = [...timeline];
  return messages.length === 0 ? copy : messages.concat(copy);
}

/** A new tree object (callers may replace its fields), sharing the unchanged arrays. */
function fromLastCompile(last: LastCompile): CompiledTree {
  let messages: ModelMessage[] = [];
  for (const source of last.sources) {
    if ('kind' in source)
      messages = withTimeline(messages, source.props.messages as ModelMessage[]);
    else messages.push(source);
  }
  const tree: CompiledTree = {
    system: last.system,
    messages,
    tools: last.tools,
    ephemeral: last.ephemeral,
  };
  if (last.leftOut !== undefined) tree.leftOut = last.leftOut;
  return tree;
}

/** The system text alone, leaving out the `dropped` elements (for a context budget). */
function systemTextOf(container: HostContainer, dropped: ReadonlySet<object>): string {
  const blocks: string[] = [];
  for (const node of container.children) {
    if (node.hidden === true || dropped.has(node)) continue;
    if (node.kind === 'text') {
      if (node.text.trim() !== '') blocks.push(node.text.trim());
    } else if (node.type === 'agate-system') {
      pushBlock(blocks, textOf(node.children, 2, dropped));
    } else if (node.type === 'agate-section') {
      pushBlock(blocks, sectionText(node, 2, dropped));
    }
  }
  return blocks.join('\n\n');
}

/** `priority` as written on an element: a finite number, or undefined. */
function priorityOf(node: HostElement): number | undefined {
  const priority = node.props.priority;
  if (priority === undefined) return undefined;
  if (typeof priority !== 'number' || !Number.isFinite(priority)) {
    throw new InvalidElementError(
      `<${displayName(node)} priority=${JSON.stringify(priority)}> needs a finite number ` +
        '(higher is kept longer when a context budget prunes).',
    );
  }
  return priority;
}

function messageSegment(node: HostElement, message: ModelMessage) {
  const priority = priorityOf(node);
  return {
    kind: 'message' as const,
    key: node,
    message,
    ...(priority !== undefined ? { priority } : {}),
  };
}

function timelineSegment(node: HostElement, messages: readonly ModelMessage[]) {
  const keepLast = node.props.keepLast ?? 0;
  if (typeof keepLast !== 'number' || !Number.isInteger(keepLast) || keepLast < 0) {
    throw new InvalidElementError(
      `<Timeline keepLast=${JSON.stringify(keepLast)}> needs a whole number of messages (0 or more).`,
    );
  }
  return {
    kind: 'timeline' as const,
    key: node,
    messages,
    priority: priorityOf(node) ?? 0,
    keepLast,
  };
}

function pushBlock(blocks: string[], text: string): void {
  if (text !== '') blocks.push(text);
}

function displayName(node: HostElement): string {
  return node.type.replace('agate-', '').replace(/^./, (c) => c.toUpperCase());
}

/** Text of a subtree: runs of text form paragraphs, sections are titled blocks. */
function textOf(children: HostNode[], headingLevel: number, dropped?: ReadonlySet<object>): string {
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
    } else if (dropped?.has(child)) {
      flush();
    } else if (child.type === 'agate-section') {
      flush();
      pushBlock(blocks, sectionText(child, headingLevel, dropped));
    } else if (child.type === 'agate-system') {
      flush();
      pushBlock(blocks, textOf(child.children, headingLevel, dropped));
    }
    // Tools, messages, timelines and nested ephemeral blocks contribute no text here.
  }
  flush();
  return blocks.join('\n\n');
}

function sectionText(node: HostElement, level: number, dropped?: ReadonlySet<object>): string {
  const body = textOf(node.children, level + 1, dropped);
  const title = node.props.title;
  if (typeof title !== 'string' || title === '') return body;
  const heading = `${'#'.repeat(Math.min(level, 6))} ${title}`;
  return body === '' ? heading : `${heading}\n${body}`;
}

/**
 * The message each `<Message>` host node compiled to last: the same object while its role and
 * text are, so that the request's messages keep their identity from tick to tick (the model
 * call converts only messages it has not seen; see runtime/request-messages.ts).
 */
const compiledMessages = new WeakMap<HostElement, ModelMessage>();

function compileMessage(node: HostElement): ModelMessage {
  const role = node.props.role;
  const text = textOf(node.children, 2);
  if (role === 'user' || role === 'assistant') {
    const last = compiledMessages.get(node);
    if (last !== undefined && last.role === role && last.content === text) return last;
    const message: ModelMessage = { role, content: text };
    compiledMessages.set(node, message);
    return message;
  }
  if (role === 'system') {
    throw new InvalidElementError(
      '<Message role="system"> is not supported: put system text in <System> so it stays in the stable prefix.',
    );
  }
  throw new InvalidElementError(
    `<Message role=${JSON.stringify(role)}> has an unknown role; use "user" or "assistant".`,
  );
}
