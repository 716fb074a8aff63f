import type { CompiledTool, EphemeralBlock } from '../renderer/compiled-context.js';
import type { ContextLayout } from '../renderer/context-layout.js';

/** What pruning works on: the compiled parts and the layout they were recorded in. */
export interface PruneInput {
  system: string;
  tools: readonly CompiledTool[];
  /** The tree's blocks first (as many as `layout.ephemeral`), then the guards' and the runtime's. */
  ephemeral: readonly EphemeralBlock[];
  layout: ContextLayout;
}
