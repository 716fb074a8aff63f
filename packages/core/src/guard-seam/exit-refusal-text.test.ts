import { describe, expect, it } from 'vitest';
import {
  MAX_NOT_ACCEPTED_CHARS,
  MAX_REASON_CHARS,
  notAcceptedText,
  plainLine,
  plainText,
} from './exit-refusal-text.js';

describe('notAcceptedText', () => {
  it("says each refusing guard's reason, one sentence each, after 'Not accepted:'", () => {
    expect(
      notAcceptedText([
        'Gate "tests" is active (refusal 1 of 3): Run the tests.',
        'Phase gates (refusal 1 of 5): change: make the change the task asks for (with put)',
      ]),
    ).toBe(
      'Not accepted: Gate "tests" is active (refusal 1 of 3): Run the tests. Phase gates (refusal 1 of 5): change: make the change the task asks for (with put).',
    );
  });

  it('adds the ending when the refusal ends the run, and says something with no reason', () => {
    expect(notAcceptedText(['Items are open'], 'The run ends blocked (not completed).')).toBe(
      'Not accepted: Items are open. The run ends blocked (not completed).',
    );
    expect(notAcceptedText([])).toBe('Not accepted: the exit was refused.');
    expect(notAcceptedText(['  ', '\u0000'])).toBe('Not accepted: the exit was refused.');
  });

  it('with no reason but an ending, says the ending alone (no generic phrase before it)', () => {
    expect(
      notAcceptedText([], 'the run ended awaiting-approval before this answer was judged'),
    ).toBe('Not accepted: the run ended awaiting-approval before this answer was judged.');
    expect(notAcceptedText([], '\u0007 ')).toBe('Not accepted: the exit was refused.');
  });

  it('makes each reason one plain line: no control characters, escapes or bidi overrides', () => {
    const text = notAcceptedText([
      'first line\nsecond\tline\r\n\u001b[31mred\u001b[0m \u202eevil\u202c \u0007bell\u009b',
    ]);
    expect(text).toBe('Not accepted: first line second line [31mred [0m evil bell.');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters that must be gone.
    expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });

  it('bounds each reason and the whole text, and says how much was left out', () => {
    const huge = 'x'.repeat(1_000_000);
    const one = notAcceptedText([huge]);
    expect(one.length).toBeLessThanOrEqual(MAX_REASON_CHARS + 20);
    expect(one).toMatch(/… \(\d+ more characters\)\.$/);
    const many = notAcceptedText(Array.from({ length: 50 }, () => huge));
    expect(many.length).toBe(MAX_NOT_ACCEPTED_CHARS);
    expect(many.startsWith('Not accepted: xxx')).toBe(true);
    expect(many).toMatch(/… \(\d+ more characters\)$/);
  });

  it('plainLine keeps short text as it is', () => {
    expect(plainLine('  Gate "a" is active.  ', 100)).toBe('Gate "a" is active.');
    expect(plainLine('a'.repeat(100), 50)).toBe(`${'a'.repeat(28)}… (50 more characters)`);
  });
});

describe('plainText', () => {
  it('keeps newlines and tabs, drops other controls and bidi overrides, and cuts to max', () => {
    expect(plainText('line 1\n\tline 2\u001b[31m\u0000\u202e\r', 100)).toBe(
      'line 1\n\tline 2 [31m',
    );
    const cut = plainText('y'.repeat(10_000), 200);
    expect(cut).toHaveLength(200);
    expect(cut.endsWith('… (9800 more characters)')).toBe(true);
  });
});
