/**
 * The committed host tree: what the reconciler builds from the agent's JSX. It is plain data
 * (no React in here) so the compiler can walk it without knowing about fibers.
 */

import type { CompiledTool } from './compiled-context.js';

/** Host element types the renderer knows. Components in `components/` are the only producers. */
export type HostType =
  | 'agate-system'
  | 'agate-section'
  | 'agate-message'
  | 'agate-timeline'
  | 'agate-tool'
  | 'agate-ephemeral';

export const HOST_TYPES: ReadonlySet<string> = new Set<HostType>([
  'agate-system',
  'agate-section',
  'agate-message',
  'agate-timeline',
  'agate-tool',
  'agate-ephemeral',
]);

export type HostProps = Record<string, unknown>;

export interface HostElement {
  kind: 'element';
  type: HostType;
  props: HostProps;
  children: HostNode[];
  parent: HostParent | null;
  /** Set while React keeps the node mounted but hidden (`<Activity mode="hidden">`, Suspense). */
  hidden?: boolean;
  /** A `<Tool>`'s compiled tool and the props it was compiled from (renderer/compile-tool.ts). */
  compiled?: { props: HostProps; tool: CompiledTool; version: number };
}

export interface HostText {
  kind: 'text';
  text: string;
  parent: HostParent | null;
  hidden?: boolean;
}

export type HostNode = HostElement | HostText;

/** The container React renders into; `version` bumps on every commit so callers can cache. */
export interface HostContainer {
  kind: 'container';
  children: HostNode[];
  version: number;
}

export type HostParent = HostElement | HostContainer;

/**
 * Bumped by every change to any host tree except a `<Timeline>` getting new messages (see
 * `noteTimelineUpdate`): while it stands still, a tree compiles to what it compiled to last,
 * apart from its timelines' messages, so the compiler can reuse the rest (renderer/compile.ts).
 * One counter for every root in the process: a change anywhere only costs a full compile.
 */
let shapeVersion = 0;

export function hostShapeVersion(): number {
  return shapeVersion;
}

/** A host tree changed in a way a compiled tree may depend on. */
export function noteShapeChange(): void {
  shapeVersion += 1;
}

/**
 * A node's props were replaced (`commitUpdate`: the element was rendered again). Props equal
 * one by one to the old ones change nothing a compile reads; nor do a `<Timeline>`'s messages
 * alone (the usual tick), which the compiler reads again every time.
 */
export function noteUpdate(node: HostElement, next: HostProps): void {
  if (!sameProps(node.props, next, node.type === 'agate-timeline')) shapeVersion += 1;
}

/** Props equal one by one (by identity), the same keys on both; `messages` left out on request. */
export function sameProps(a: HostProps, b: HostProps, exceptMessages = false): boolean {
  let count = 0;
  for (const key in a) {
    count += 1;
    if (a[key] !== b[key] && !(exceptMessages && key === 'messages')) return false;
  }
  for (const _ in b) count -= 1;
  return count === 0;
}

export function appendChild(parent: HostParent, child: HostNode): void {
  removeChild(parent, child);
  child.parent = parent;
  parent.children.push(child);
}

export function insertBefore(parent: HostParent, child: HostNode, before: HostNode): void {
  removeChild(parent, child);
  const index = parent.children.indexOf(before);
  child.parent = parent;
  if (index === -1) parent.children.push(child);
  else parent.children.splice(index, 0, child);
}

export function removeChild(parent: HostParent, child: HostNode): void {
  shapeVersion += 1;
  const index = parent.children.indexOf(child);
  if (index !== -1) parent.children.splice(index, 1);
  if (child.parent === parent) child.parent = null;
}
