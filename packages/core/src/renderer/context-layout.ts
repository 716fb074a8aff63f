import type { ModelMessage } from 'ai';

/**
 * What compile records for the budget, per element, besides the compiled text: priorities,
 * which messages came from which timeline, and a stable key per element (its host node, which
 * React keeps across renders while the element stays mounted) so a cut can be kept between ticks.
 * context-budget/ prunes from it; it lives here, beside compile, which writes it.
 */
export interface ContextLayout {
  /** `<System priority>` / `<Section priority>` in the system text, in tree order. */
  system: SystemUnit[];
  /** The system text again with some prioritized elements left out. */
  rebuildSystem(dropped: ReadonlySet<object>): string;
  /** Fixed messages and timelines, in request order. */
  segments: MessageSegment[];
  /** The tree's own ephemeral blocks (guards' blocks come after these and have no entry). */
  ephemeral: Array<{ key: object; priority?: number }>;
}

export interface SystemUnit {
  key: object;
  priority: number;
  text: string;
  /** Index of the closest enclosing prioritized unit (a section inside a prioritized system). */
  parent?: number;
}

export type MessageSegment =
  | { kind: 'message'; key: object; message: ModelMessage; priority?: number }
  | {
      kind: 'timeline';
      key: object;
      messages: readonly ModelMessage[];
      /** Default 0: history goes before anything with a higher priority. */
      priority: number;
      /** The newest messages that are never dropped. */
      keepLast: number;
    };
