/**
 * Where a tick's CPU time goes, by part, from a V8 CPU profile of Agate's built `dist/` (pure:
 * the profile and the bundle's source are passed in). The bundle is one file per entry and
 * shared chunk, but esbuild writes a `// src/<module>` comment where each module's code starts,
 * so a sampled line tells its source module; a sample's part is decided by the frames on its
 * stack (see `partOfStack`).
 */

/** The parts of a tick, in the order the report lists them. */
export const OWN_TICK_PARTS = [
  'events',
  'render and compile',
  'commit and freezing',
  'guards',
  'model request',
  'tool calls',
  'session set-up and disposal',
  'garbage collection',
  'other',
] as const;

export type OwnTickPart = (typeof OWN_TICK_PARTS)[number];
/** The AI SDK's code (its call, the model it calls): the part that is not Agate's own. */
export type TickPart = OwnTickPart | 'AI SDK call';

/** One frame, as the profile names it and where its code came from. */
export interface Frame {
  functionName: string;
  /** The npm package the code is from (`react`, `ai`, `@agate/core`), undefined for none. */
  package: string | undefined;
  /** For `@agate/core`'s bundle: the source module (`src/runtime/events.ts`). */
  module: string | undefined;
  /** Code from a file (not Node's own, not V8's `(program)`, `(garbage collector)`). */
  isScript?: boolean;
}

/**
 * A sample's part, from its stack (outermost frame first):
 * - anything under a `Session`'s construction or `dispose()` is set-up and disposal;
 * - otherwise the innermost frame that is the AI SDK's code or belongs to a part decides: an
 *   event emitted by a guard is an event, React's work under the tick's render is the render,
 *   zod validating a call inside the SDK is the SDK. A frame that belongs to no part (another
 *   dependency, a helper) leaves the decision to its callers. The SDK's code is told by its
 *   package, not by a `generateText` frame above it: after an `await` the SDK's code resumes
 *   with nothing of its caller on the stack.
 */
export function partOfStack(stack: readonly Frame[]): TickPart {
  if (stack.some(isSetUpOrDisposal)) return 'session set-up and disposal';
  const leaf = stack.at(-1);
  if (leaf?.functionName === '(garbage collector)') return 'garbage collection';
  let appCode = false;
  for (let i = stack.length - 1; i >= 0; i--) {
    const frame = stack[i]!;
    if (isSdk(frame.package)) return 'AI SDK call';
    // The model itself (the app's code, called through Agate's wrapper that renames repeated
    // call ids) is the call's, as it is when the call is made alone.
    if (appCode && frame.module === MODEL_WRAPPER) return 'AI SDK call';
    const part = partOfFrame(frame);
    if (part !== undefined) return part;
    appCode ||= isAppCode(frame);
  }
  return 'other';
}

/** Agate's wrapper around the app's model (`withUniqueCallIds`). */
const MODEL_WRAPPER = 'src/runtime/unique-call-ids.ts';

/** The app's own code (the bench's scripted model, a tool's `execute`): a script of no package. */
function isAppCode(frame: Frame): boolean {
  return frame.package === undefined && frame.isScript === true;
}

function isSdk(pkg: string | undefined): boolean {
  return pkg === 'ai' || (pkg?.startsWith('@ai-sdk/') ?? false);
}

const SESSION_MODULES = new Set(['src/runtime/session.ts', 'src/runtime/session-core.ts']);
const SET_UP = new Set(['Session', 'SessionCore', 'createSession', 'dispose']);

function isSetUpOrDisposal(frame: Frame): boolean {
  return (
    frame.module !== undefined &&
    SESSION_MODULES.has(frame.module) &&
    SET_UP.has(frame.functionName)
  );
}

const RENDER_PACKAGES = new Set(['react', 'react-reconciler', 'scheduler']);

/** Source modules by part: the first prefix that matches decides. */
const MODULE_PARTS: ReadonlyArray<readonly [prefix: string, part: OwnTickPart]> = [
  ['src/runtime/events.ts', 'events'],
  ['src/tick-log/', 'events'],
  ['src/renderer/', 'render and compile'],
  ['src/components/', 'render and compile'],
  ['src/context-budget/', 'render and compile'],
  ['src/runtime/tick/render-context.ts', 'render and compile'],
  ['src/runtime/session-context.tsx', 'render and compile'],
  ['src/runtime/declarations.ts', 'render and compile'],
  ['src/state/', 'commit and freezing'],
  ['src/runtime/tick/end-tick.ts', 'commit and freezing'],
  ['src/guard-seam/', 'guards'],
  ['src/families/', 'guards'],
  ['src/runtime/tick/attempt-exit.ts', 'guards'],
  ['src/runtime/tick/ask-model.ts', 'model request'],
  ['src/runtime/model-call.ts', 'model request'],
  ['src/runtime/request-messages.ts', 'model request'],
  ['src/runtime/unique-call-ids.ts', 'model request'],
  ['src/runtime/abort.ts', 'model request'],
  ['src/runtime/durable-steps.ts', 'model request'],
  ['src/runtime/streaming.ts', 'model request'],
  ['src/runtime/sdk-telemetry.ts', 'model request'],
  ['src/telemetry/', 'model request'],
  ['src/runtime/tick/run-tool-calls.ts', 'tool calls'],
  ['src/runtime/tick/finish-calls.ts', 'tool calls'],
  ['src/runtime/tool-', 'tool calls'],
  ['src/runtime/inflight.ts', 'tool calls'],
  ['src/runtime/run-session.ts', 'session set-up and disposal'],
  ['src/runtime/run-claim.ts', 'session set-up and disposal'],
  ['src/runtime/run.ts', 'session set-up and disposal'],
];

function partOfFrame(frame: Frame): OwnTickPart | undefined {
  if (frame.package === 'immer') return 'commit and freezing';
  if (frame.package !== undefined && RENDER_PACKAGES.has(frame.package)) {
    return 'render and compile';
  }
  const { module } = frame;
  if (module === undefined) return undefined;
  if (module === 'src/runtime/session-core.ts' && frame.functionName === 'emit') return 'events';
  return MODULE_PARTS.find(([prefix]) => module.startsWith(prefix))?.[1];
}

/**
 * The source module of each line of an esbuild bundle, from its `// src/...` comments:
 * `moduleAt(line)` (0-based, as V8 numbers them) is the last module started at or before it.
 */
export function bundleModules(source: string): (line: number) => string | undefined {
  const starts: Array<{ line: number; module: string }> = [];
  const lines = source.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const match = /^\/\/ (src\/\S+)$/.exec(lines[i]!);
    if (match) starts.push({ line: i, module: match[1]! });
  }
  return (line) => {
    let lo = 0;
    let hi = starts.length - 1;
    let found: string | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]!.line <= line) {
        found = starts[mid]!.module;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  };
}

/** The npm package a script URL is from (pnpm's layout or a plain `node_modules`). */
export function packageOfUrl(url: string): string | undefined {
  if (/\/(?:packages\/core|@agate\/core)\/dist\//.test(url)) return '@agate/core';
  const match = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  return match?.[1];
}

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * Milliseconds of samples by part. `modulesOf(url)` gives the line-to-module map of one of
 * Agate's bundle files (see `bundleModules`). Idle samples are left out, as is the profiler's
 * own work (`node:inspector` on the stack).
 */
export function partsOfProfile(
  profile: CpuProfile,
  modulesOf: (url: string) => ((line: number) => string | undefined) | undefined,
): Record<TickPart, number> {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const frameOf = (node: ProfileNode): Frame => {
    const pkg = packageOfUrl(node.callFrame.url);
    const { url } = node.callFrame;
    return {
      functionName: node.callFrame.functionName,
      package: pkg,
      isScript: url.startsWith('file:'),
      module:
        pkg === '@agate/core'
          ? modulesOf(node.callFrame.url)?.(node.callFrame.lineNumber)
          : undefined,
    };
  };
  const partOfNode = new Map<number, TickPart | null>();
  const totals = Object.fromEntries(
    [...OWN_TICK_PARTS, 'AI SDK call'].map((part) => [part, 0]),
  ) as Record<TickPart, number>;
  profile.samples.forEach((id, i) => {
    let part = partOfNode.get(id);
    if (part === undefined) {
      const stack: ProfileNode[] = [];
      for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
        stack.unshift(nodes.get(cur)!);
      }
      const idle = stack.at(-1)?.callFrame.functionName === '(idle)';
      const profiler = stack.some((node) => node.callFrame.url === 'node:inspector');
      part = idle || profiler ? null : partOfStack(stack.map(frameOf));
      partOfNode.set(id, part);
    }
    if (part !== null) totals[part] += (profile.timeDeltas[i] ?? 0) / 1000;
  });
  return totals;
}
