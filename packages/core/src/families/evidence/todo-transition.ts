import { textKey } from './normalize.js';
import type { TodoEvidence, TodoInput, TodoItem } from './todo-types.js';

/** A sign-off of this turn, as the transition check needs it (the ledger's `signOffs()`). */
export interface SignedStep {
  content: string;
  activeForm: string;
  evidence: TodoEvidence;
}

export type TodoWriteCheck =
  | { ok: true; items: TodoItem[] }
  | {
      ok: false;
      /** Items the write newly marks completed with no sign-off this turn. */
      unsignedCompletions: TodoInput[];
      /** Contents used by more than one item. */
      duplicates: string[];
      /** Items not completed before that the write leaves out (they must be kept, or dropped with a reason). */
      missing: TodoItem[];
      /** Items the write marks `dropped` without a reason. */
      droppedWithoutReason: TodoInput[];
      message: string;
    };

/**
 * The transition check of `todo_write`. A write that newly marks an item `completed` (no item
 * with the same content was completed in the list before) is accepted only when a sign-off of
 * this turn covers it: one for the same content, else one for the same activeForm (so a write
 * may reword one of the two). Within one write a sign-off covers one item, so two items sharing
 * an activeForm need two sign-offs. Items that were completed may stay completed. Contents must
 * be unique, so a step name picks one item. On success, the new list with each item's evidence:
 * a newly completed item's from its sign-off, any other item's carried over from the item with
 * the same content before.
 */
export function checkTodoWrite(
  before: readonly TodoItem[],
  next: readonly TodoInput[],
  signOffs: readonly SignedStep[],
): TodoWriteCheck {
  const previous = new Map<string, TodoItem>();
  for (const item of before) previous.set(textKey(item.content), item);

  const seen = new Set<string>();
  const duplicates: string[] = [];
  const droppedWithoutReason: TodoInput[] = [];
  const items: TodoItem[] = [];
  const newlyCompleted: number[] = [];
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
    const reason = typeof input.reason === 'string' ? input.reason.trim() : '';
    if (input.status === 'dropped') {
      if (reason === '') droppedWithoutReason.push(input);
      else item.reason = reason;
    }
    if (input.status === 'completed' && old?.status !== 'completed') {
      newlyCompleted.push(items.length);
    } else if (old?.evidence !== undefined) {
      item.evidence = old.evidence;
    }
    items.push(item);
  }

  // Content matches first, then activeForm; the latest sign-off wins; each covers one item.
  const used = new Set<SignedStep>();
  const cover = (index: number, field: 'content' | 'activeForm'): boolean => {
    const item = items[index]!;
    const key = textKey(item[field]);
    for (let i = signOffs.length - 1; i >= 0; i--) {
      const s = signOffs[i]!;
      if (used.has(s) || textKey(s[field]) !== key) continue;
      used.add(s);
      item.evidence = s.evidence;
      return true;
    }
    return false;
  };
  const byContent = newlyCompleted.filter((i) => !cover(i, 'content'));
  const unsignedCompletions: TodoInput[] = byContent
    .filter((i) => !cover(i, 'activeForm'))
    .map((i) => next[i]!);
  // Deleting an item is not a way past <Todos requireComplete>: what was not completed stays.
  const missing = before.filter(
    (item) => item.status !== 'completed' && !seen.has(textKey(item.content)),
  );
  if (
    unsignedCompletions.length === 0 &&
    duplicates.length === 0 &&
    missing.length === 0 &&
    droppedWithoutReason.length === 0
  ) {
    return { ok: true, items };
  }
  return {
    ok: false,
    unsignedCompletions,
    duplicates,
    missing,
    droppedWithoutReason,
    message: rejection(unsignedCompletions, duplicates, missing, droppedWithoutReason),
  };
}

function rejection(
  unsigned: readonly TodoInput[],
  duplicates: readonly string[],
  missing: readonly TodoItem[] = [],
  droppedWithoutReason: readonly TodoInput[] = [],
): string {
  const lines = ['todo_write rejected; the todo list is unchanged.'];
  if (missing.length > 0) {
    lines.push(
      'These items are not completed and the write leaves them out:',
      ...missing.map((item) => `- "${item.content}" (${item.status})`),
      "Keep them in the list. To give one up deliberately, keep it with status 'dropped' and a reason.",
    );
  }
  if (droppedWithoutReason.length > 0) {
    lines.push(
      `Dropping an item needs a reason: ${droppedWithoutReason.map((i) => `"${i.content}"`).join(', ')}.`,
    );
  }
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

/** The items still to do (pending, in progress), with their 1-based numbers. */
export function incompleteItems(
  items: readonly TodoItem[],
): Array<{ number: number; item: TodoItem }> {
  return items.flatMap((item, i) =>
    item.status === 'pending' || item.status === 'in_progress' ? [{ number: i + 1, item }] : [],
  );
}

/**
 * What blocks `<Todos requireComplete>`: the items still to do; and when every item was
 * dropped (nothing was done at all), all of them: a run that gave up on everything is not a
 * completion.
 */
export function blockingItems(
  items: readonly TodoItem[],
): Array<{ number: number; item: TodoItem }> {
  const open = incompleteItems(items);
  if (open.length > 0) return open;
  if (items.length > 0 && items.every((item) => item.status === 'dropped')) {
    return items.map((item, i) => ({ number: i + 1, item }));
  }
  return [];
}
