import { describeEvidence } from './check-step-evidence.js';
import { COMPLETE_STEP_TOOL, TODO_WRITE_TOOL } from './todo-tools.js';
import { blockingItems } from './todo-transition.js';
import type { TodoItem } from './todo-types.js';

/** One line per item: number, status, content, activeForm, and the evidence it was signed off with. */
export function formatTodoItems(items: readonly TodoItem[]): string {
  return items
    .map((item, i) => {
      const line =
        `${i + 1}. [${item.status}] ${item.content} (${item.activeForm})` +
        (item.status === 'dropped' ? ` — dropped: ${item.reason ?? '(no reason)'}` : '');
      return item.evidence === undefined
        ? line
        : `${line}\n   signed off, ${describeEvidence(item.evidence)}`;
    })
    .join('\n');
}

/** The list as the model sees it each tick (ephemeral content, after the cached prefix). */
export function formatTodoList(
  items: readonly TodoItem[],
  options: { requireComplete: boolean },
): string {
  const open = blockingItems(items).length;
  return [
    '## Todo list',
    items.length === 0 ? 'No items yet. Plan the work with todo_write.' : formatTodoItems(items),
    `Keep the list current with ${TODO_WRITE_TOOL}. An item may be marked completed only after ${COMPLETE_STEP_TOOL} signed it off in this turn with evidence the host checks (a command you ran, files you read or edited); a completing write without it is rejected.` +
      (options.requireComplete && open > 0
        ? ` You cannot finish while ${open === 1 ? 'an item is' : `${open} items are`} not completed.`
        : ''),
  ].join('\n');
}
