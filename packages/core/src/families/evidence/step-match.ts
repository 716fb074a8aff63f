import { textKey } from './normalize.js';
import type { TodoItem } from './todo-types.js';

export type StepMatch =
  | { kind: 'match'; index: number; item: TodoItem }
  | { kind: 'none' }
  /** The text names more than one item (two items share an activeForm). */
  | { kind: 'ambiguous'; indices: number[] };

type ItemText = Pick<TodoItem, 'content' | 'activeForm'>;

/**
 * Which item of the current list `step` names: an item whose `content` is the text, else one
 * whose `activeForm` is (both compared by `textKey`: trimmed, whitespace collapsed, case-folded),
 * else the item with that 1-based number (a number, or a string of digits). Text comes first,
 * so an item whose content is "2" is matched by "2" before item number 2 is.
 */
export function matchStep<T extends ItemText>(
  items: readonly T[],
  step: string | number,
): { kind: 'match'; index: number; item: T } | Exclude<StepMatch, { kind: 'match' }> {
  if (typeof step === 'string') {
    const key = textKey(step);
    if (key !== '') {
      for (const field of ['content', 'activeForm'] as const) {
        const indices = items.flatMap((item, i) => (textKey(item[field]) === key ? [i] : []));
        if (indices.length === 1)
          return { kind: 'match', index: indices[0]!, item: items[indices[0]!]! };
        if (indices.length > 1) return { kind: 'ambiguous', indices };
      }
    }
  }
  const number = stepNumber(step);
  if (number !== undefined && number >= 1 && number <= items.length) {
    return { kind: 'match', index: number - 1, item: items[number - 1]! };
  }
  return { kind: 'none' };
}

function stepNumber(step: string | number): number | undefined {
  if (typeof step === 'number') return Number.isInteger(step) ? step : undefined;
  const trimmed = step.trim();
  return /^\d+$/.test(trimmed) ? Number(trimmed) : undefined;
}
