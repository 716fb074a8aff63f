import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchStep } from './step-match.js';

const items = [
  { content: 'Fix the bug', activeForm: 'Fixing the bug' },
  { content: 'Run the tests', activeForm: 'Running the tests' },
  { content: '2', activeForm: 'Doing two' },
  { content: 'Deploy', activeForm: 'Running the tests' },
];

describe('matchStep', () => {
  it('by content, then activeForm, compared trimmed, collapsed and case-folded', () => {
    expect(matchStep(items, 'Fix the bug')).toMatchObject({ kind: 'match', index: 0 });
    expect(matchStep(items, '  fix  THE bug ')).toMatchObject({ kind: 'match', index: 0 });
    expect(matchStep(items, 'Fixing the bug')).toMatchObject({ kind: 'match', index: 0 });
  });

  it('by 1-based number, as a number or a string of digits', () => {
    expect(matchStep(items, 1)).toMatchObject({ kind: 'match', index: 0 });
    expect(matchStep(items, ' 4 ')).toMatchObject({ kind: 'match', index: 3 });
    for (const step of [0, 5, -1, 1.5, '1.5', '#1', '']) {
      expect(matchStep(items, step)).toEqual({ kind: 'none' });
    }
  });

  it('text comes before numbers: "2" is the item whose content is "2"', () => {
    expect(matchStep(items, '2')).toMatchObject({ kind: 'match', index: 2 });
    expect(matchStep(items, 2)).toMatchObject({ kind: 'match', index: 1 });
  });

  it('a text that names two items is ambiguous', () => {
    expect(matchStep(items, 'Running the tests')).toEqual({ kind: 'ambiguous', indices: [1, 3] });
  });

  it('nothing matches in an empty list', () => {
    expect(matchStep([], 1)).toEqual({ kind: 'none' });
    expect(matchStep([], 'x')).toEqual({ kind: 'none' });
  });
});

/** Lists with unique, non-numeric contents (as todo_write guarantees unique contents). */
const lists = fc
  .uniqueArray(
    fc.record({
      content: fc.string({ minLength: 1, maxLength: 12 }).map((s) => `c ${s}`),
      activeForm: fc.string({ maxLength: 12 }).map((s) => `a ${s}`),
    }),
    { selector: (i) => i.content.trim().replace(/\s+/g, ' ').toLowerCase(), maxLength: 8 },
  )
  .map((l) => l.map((i, n) => ({ ...i, activeForm: `${i.activeForm} ${n}` })));

/** Case and whitespace changes a model might make when it quotes an item. */
const respell = (text: string, upper: boolean, pad: string) =>
  `${pad}${(upper ? text.toUpperCase() : text.toLowerCase()).replace(/ /g, '  ')}${pad}`;

describe('matchStep properties', () => {
  it('every item is found by its number, its numeric string, its content and its activeForm', () => {
    fc.assert(
      fc.property(lists, fc.boolean(), fc.constantFrom('', ' ', '\t'), (list, upper, pad) => {
        list.forEach((item, i) => {
          for (const step of [i + 1, String(i + 1), respell(item.content, upper, pad)]) {
            const found = matchStep(list, step);
            expect(found).toMatchObject({ kind: 'match', index: i });
          }
          // Upper-casing can merge two activeForms ("ß" and "SS"); only assert when unique.
          const active = matchStep(list, item.activeForm);
          if (active.kind === 'match') expect(active.item.activeForm).toBe(item.activeForm);
        });
      }),
    );
  });

  it('a match is always an item of the list, at its index; numbers out of range never match', () => {
    fc.assert(
      fc.property(lists, fc.oneof(fc.integer(), fc.string(), fc.double()), (list, step) => {
        const found = matchStep(list, step);
        if (found.kind === 'match') expect(list[found.index]).toBe(found.item);
        if (typeof step === 'number' && (step < 1 || step > list.length)) {
          expect(found.kind).toBe('none');
        }
      }),
    );
  });
});
