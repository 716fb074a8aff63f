import { describe, expect, it } from 'vitest';
import { briefMessage } from '../sessions/timeline-brief.js';
import { asText, formatTable, preview, shortTime } from './table.js';

describe('formatTable', () => {
  it('pads every column to its widest cell, two spaces apart, with no trailing spaces', () => {
    expect(
      formatTable(
        ['id', 'status', 'n'],
        [
          ['a', 'completed', '4'],
          ['long-id', 'idle', ''],
        ],
      ),
    ).toBe(['id       status     n', 'a        completed  4', 'long-id  idle'].join('\n'));
  });
});

describe('preview, shortTime, asText', () => {
  it('keeps one line and cuts long text with an ellipsis', () => {
    expect(preview('a\nb\r\nc', 10)).toBe('a⏎b⏎c');
    expect(preview('abcdef', 4)).toBe('abc…');
    expect(preview('abcd', 4)).toBe('abcd');
  });

  it('shows times to the second in UTC, and leaves anything else as it is', () => {
    expect(shortTime('2026-11-23T10:01:02.345Z')).toBe('2026-11-23 10:01:02Z');
    expect(shortTime('yesterday')).toBe('yesterday');
  });

  it('writes strings as they are and other values as JSON', () => {
    expect(asText('x')).toBe('x');
    expect(asText({ a: [1] })).toBe('{"a":[1]}');
    expect(asText(undefined)).toBe('undefined');
  });
});

describe('briefMessage', () => {
  it('shows text, tool calls and results, errors marked', () => {
    expect(
      briefMessage({
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'hmm' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool-call', toolCallId: '1', toolName: 'read', input: { path: 'a' } },
        ],
      }),
    ).toBe('assistant  (reasoning)  "Reading."  → read {"path":"a"}');
    expect(
      briefMessage({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: '1',
            toolName: 'read',
            output: { type: 'text', value: 'hi' },
          },
          {
            type: 'tool-result',
            toolCallId: '2',
            toolName: 'w',
            output: { type: 'error-text', value: 'no' },
          },
        ],
      }),
    ).toBe('tool       ← read: hi  ✗ w: no');
    expect(briefMessage({ role: 'user', content: 'Do it.' })).toBe('user       "Do it."');
  });

  it('never throws on a shape it does not know (the timeline comes from a file)', () => {
    expect(briefMessage(null)).toBe('?  null');
    expect(briefMessage({ role: 'assistant', content: [{ type: 'image' }, 7] })).toBe(
      'assistant  (image)  7',
    );
    expect(briefMessage({ content: 3 })).toBe('?          ');
  });

  it('cuts a long message to the width', () => {
    expect(briefMessage({ role: 'user', content: 'x'.repeat(300) }, 20)).toBe(
      `user       "${'x'.repeat(18)}…`,
    );
  });
});
