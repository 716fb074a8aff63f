import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { textKey } from './normalize.js';
import { checkTodoWrite, incompleteItems, type SignedStep } from './todo-transition.js';
import type { TodoEvidence, TodoInput, TodoItem, TodoStatus } from './todo-types.js';

const evidence: TodoEvidence = { verified: true, command: 'npm test', tick: 1 };
const item = (content: string, status: TodoStatus, activeForm = `${content}-ing`): TodoItem => ({
  content,
  activeForm,
  status,
});
const none: SignedStep[] = [];
const signed = (content: string, activeForm = '-'): SignedStep => ({
  content,
  activeForm,
  evidence,
});

describe('checkTodoWrite', () => {
  it('accepts a write that completes nothing new', () => {
    const before = [item('a', 'completed'), item('b', 'pending')];
    before[0]!.evidence = evidence;
    const check = checkTodoWrite(before, [item('a', 'completed'), item('b', 'in_progress')], none);
    expect(check).toEqual({
      ok: true,
      items: [{ ...item('a', 'completed'), evidence }, item('b', 'in_progress')],
    });
  });

  it('rejects each newly completed item without a sign-off, by name', () => {
    const before = [item('a', 'pending'), item('b', 'pending')];
    const check = checkTodoWrite(before, [item('a', 'completed'), item('c', 'completed')], none);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.unsignedCompletions.map((i) => i.content)).toEqual(['a', 'c']);
    expect(check.message).toContain('- "a"\n- "c"');
    expect(check.message).toContain('call complete_step for each of them first');
  });

  it('a sign-off by content or activeForm allows the completion and gives it its evidence', () => {
    const signOffs = [signed('a', 'doing a')];
    const byContent = checkTodoWrite([item('a', 'pending')], [item('A ', 'completed')], signOffs);
    expect(byContent).toEqual({ ok: true, items: [{ ...item('A ', 'completed'), evidence }] });
    const byActive = checkTodoWrite([], [item('renamed', 'completed', 'Doing  A')], signOffs);
    expect(byActive.ok).toBe(true);
  });

  it('within one write a sign-off covers one item, content matches first', () => {
    const twins = [item('x', 'completed', 'testing'), item('y', 'completed', 'testing')];
    expect(checkTodoWrite([], twins, [signed('x', 'testing')]).ok).toBe(false);
    const both = checkTodoWrite([], twins, [signed('y', 'testing'), signed('other', 'testing')]);
    expect(both.ok && both.items.map((i) => i.evidence !== undefined)).toEqual([true, true]);
    // "y" is taken by its content match, so the activeForm-only sign-off covers "x".
    const check = checkTodoWrite([], twins, [signed('x2', 'testing'), signed('y', 'testing')]);
    expect(check.ok).toBe(true);
  });

  it('a completed item whose content changed is a new completion', () => {
    const check = checkTodoWrite([item('a', 'completed')], [item('a, renamed', 'completed')], none);
    expect(check.ok).toBe(false);
  });

  it('rejects two items with one content', () => {
    const check = checkTodoWrite([], [item('a', 'pending'), item(' A', 'pending')], none);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.message).toContain('used more than once: " A"');
  });

  it('incompleteItems numbers the open items from 1', () => {
    expect(
      incompleteItems([item('a', 'completed'), item('b', 'in_progress')]).map((o) => o.number),
    ).toEqual([2]);
  });
});

// ---- properties ------------------------------------------------------------------------

const CONTENTS = ['Fix', 'fix', 'Test', 'Ship', 'Doc'];
const todoInput = fc.record({
  content: fc.constantFrom(...CONTENTS),
  activeForm: fc.constantFrom('Fixing', 'Testing', 'Shipping'),
  status: fc.constantFrom<TodoStatus>('pending', 'in_progress', 'completed'),
});
const writes = fc.array(fc.array(todoInput, { maxLength: 5 }), { maxLength: 12 });
const completedKeys = (items: readonly TodoInput[]) =>
  new Set(items.filter((i) => i.status === 'completed').map((i) => textKey(i.content)));

describe('checkTodoWrite properties', () => {
  it('no sequence of writes without a sign-off ever produces a new completed item', () => {
    fc.assert(
      fc.property(fc.array(todoInput, { maxLength: 5 }), writes, (start, sequence) => {
        let list: TodoItem[] = start.map((i) => ({ ...i }));
        const initiallyCompleted = completedKeys(list);
        for (const next of sequence) {
          const check = checkTodoWrite(list, next, none);
          if (!check.ok) continue; // rejected: the list stays as it was
          for (const key of completedKeys(check.items)) {
            expect(completedKeys(list).has(key)).toBe(true);
          }
          list = check.items;
        }
        for (const key of completedKeys(list)) expect(initiallyCompleted.has(key)).toBe(true);
      }),
    );
  });

  it('with sign-offs, every newly completed item is one that was signed off', () => {
    fc.assert(
      fc.property(
        writes,
        fc.array(fc.constantFrom(...CONTENTS), { maxLength: 3 }),
        (sequence, signedContents) => {
          const signOffs = signedContents.map((c) => signed(c));
          const signedKeys = new Set(signedContents.map(textKey));
          let list: TodoItem[] = [];
          for (const next of sequence) {
            const check = checkTodoWrite(list, next, signOffs);
            if (!check.ok) {
              expect(
                check.unsignedCompletions.length +
                  check.duplicates.length +
                  check.missing.length +
                  check.droppedWithoutReason.length,
              ).toBeGreaterThan(0);
              continue;
            }
            const before = completedKeys(list);
            for (const key of completedKeys(check.items)) {
              if (!before.has(key)) expect(signedKeys.has(key)).toBe(true);
            }
            list = check.items;
          }
        },
      ),
    );
  });
});
