import type { CompiledTool } from '../renderer/compiled-context.js';

/** A tick's tools by name, and their names in order. */
export interface ToolIndex {
  byName: ReadonlyMap<string, CompiledTool>;
  /** Shared by every tick with these tools: frozen. */
  names: readonly string[];
}

/**
 * Something made from a list of compiled tools, kept while the list holds the same tools.
 * Compiled tools are kept per process (renderer/compile-tool.ts), so every session and tick that
 * renders the same tools finds what the first one made: per process, not per session or tick.
 * Keyed by the list's first tool; a few lists per first tool (a tree that mounts a tool now and
 * then), the oldest forgotten first.
 */
export class PerToolList<T> {
  private readonly kept = new WeakMap<
    CompiledTool,
    { tools: readonly CompiledTool[]; value: T }[]
  >();

  constructor(
    private readonly make: (tools: readonly CompiledTool[]) => T,
    private readonly perFirstTool = 8,
  ) {}

  of(tools: readonly CompiledTool[], empty: T): T {
    const first = tools[0];
    if (first === undefined) return empty;
    let lists = this.kept.get(first);
    if (lists === undefined) {
      lists = [];
      this.kept.set(first, lists);
    }
    for (const entry of lists) if (sameItems(entry.tools, tools)) return entry.value;
    const value = this.make(tools);
    if (lists.length >= this.perFirstTool) lists.shift();
    lists.push({ tools: tools.slice(), value });
    return value;
  }
}

const NO_TOOLS: ToolIndex = { byName: new Map(), names: Object.freeze([]) };
const indexes = new PerToolList<ToolIndex>((tools) => ({
  byName: new Map(tools.map((t) => [t.name, t])),
  names: Object.freeze(tools.map((t) => t.name)),
}));

/** The index of a render's tools (made once per list of tools in the process). */
export function toolIndexOf(tools: readonly CompiledTool[]): ToolIndex {
  return indexes.of(tools, NO_TOOLS);
}

/** Whether two lists hold the same items (by identity) in the same order. */
export function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
