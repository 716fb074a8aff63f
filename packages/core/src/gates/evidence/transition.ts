import { textKey } from './normalize.js';
import type { TodoEvidence, TodoInput, TodoItem } from './types.js';

/** What a sign-off of this turn proves about an item (the ledger's `findSignOff`). */
export type SignOffLookup = (item: TodoInput) => { evidence: TodoEvidence } | undefined;

export type TodoWriteCheck =
  | { ok: true; items: TodoItem[] }
  | {
      ok: false;
      /** Items the write newly marks completed with no sign-off this turn. */
      unsignedCompletions: TodoInput[];
      /** Contents used by more than one item. */
      duplicates: string[];
      message: string;
    };

/**
 * The transition check of `todo_write`. A write that newly marks an item `completed` (no item
 * with the same content was completed in the list before) is accepted only when `signedOff`
 * finds a sign-off of this turn for it, by content or activeForm. Items that were completed
 * may stay completed. Contents must be unique, so a step name picks one item. On success, the
 * new list with each item's evidence: a newly completed item's from its sign-off, any other
 * item's carried over from the item with the same content before.
 */
export function checkTodoWrite(
  before: readonly TodoItem[],
  next: readonly TodoInput[],
  signedOff: SignOffLookup,
): TodoWriteCheck {
  const previous = new Map<string, TodoItem>();
  for (const item of before) previous.set(textKey(item.content), item);

  const seen = new Set<string>();
  const duplicates: string[] = [];
  const unsignedCompletions: TodoInput[] = [];
  const items: TodoItem[] = [];
  for (const input of next) {
    const key = textKey(input.content);
    if (seen.has(key)) duplicates.push(input.content);
    seen.add(key);
    const old = previous.get(key);
    const item: TodoItem = {
      content: input.content,
      activeForm: input.activeForm,
      status: input.status,
    };
    if (input.status === 'completed' && old?.status !== 'completed') {
      const signOff = signedOff(input);
      if (signOff === undefined) unsignedCompletions.push(input);
      else item.evidence = signOff.evidence;
    } else if (old?.evidence !== undefined) {
      item.evidence = old.evidence;
    }
    items.push(item);
  }
  if (unsignedCompletions.length === 0 && duplicates.length === 0) return { ok: true, items };
  return {
    ok: false,
    unsignedCompletions,
    duplicates,
    message: rejection(unsignedCompletions, duplicates),
  };
}

function rejection(unsigned: readonly TodoInput[], duplicates: readonly string[]): string {
  const lines = ['todo_write rejected; the todo list is unchanged.'];
  if (unsigned.length > 0) {
    lines.push(
      `These items are newly marked completed, but no complete_step signed them off in this turn:`,
      ...unsigned.map((item) => `- "${item.content}"`),
      'Do the work, call complete_step for each of them first (with the evidence: the command you ran, the files you read or edited), then write the list again.',
    );
  }
  if (duplicates.length > 0) {
    lines.push(
      `Each item needs its own content; used more than once: ${duplicates.map((d) => `"${d}"`).join(', ')}.`,
    );
  }
  return lines.join('\n');
}

/** The items that still block `<Todos requireComplete>`, with their 1-based numbers. */
export function incompleteItems(
  items: readonly TodoItem[],
): Array<{ number: number; item: TodoItem }> {
  return items.flatMap((item, i) => (item.status === 'completed' ? [] : [{ number: i + 1, item }]));
}
