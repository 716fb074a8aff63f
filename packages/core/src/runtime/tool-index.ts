import type { CompiledTool } from '../renderer/compiled-context.js';

/** A tick's tools by name, and their names in order. */
export interface ToolIndex {
  byName: ReadonlyMap<string, CompiledTool>;
  names: readonly string[];
}

/**
 * The index of a render's tools, kept while the tools are the same objects: compiled tools are
 * kept per element (renderer/compile.ts), so a steady tree indexes its tools once, not once per
 * tick. One index per session (its tools change rarely; a new list just replaces it).
 */
export class ToolIndexCache {
  private tools: readonly CompiledTool[] = [];
  private index: ToolIndex = { byName: new Map(), names: [] };

  of(tools: readonly CompiledTool[]): ToolIndex {
    if (!sameItems(this.tools, tools)) {
      this.tools = tools.slice();
      this.index = {
        byName: new Map(tools.map((t) => [t.name, t])),
        names: tools.map((t) => t.name),
      };
    }
    return this.index;
  }
}

/** Whether two lists hold the same items (by identity) in the same order. */
export function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
