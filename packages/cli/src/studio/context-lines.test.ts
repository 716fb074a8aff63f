import type { MaterializedTick } from '@agate/core/stores';
import { describe, expect, it } from 'vitest';
import { contextLines } from './context-lines.js';

const tick: MaterializedTick = {
  system: 'You fix bugs.\nBe brief.',
  tools: [{ name: 'write_file', description: 'Write a file.' }, { name: 'set_knob' }],
  messages: [
    { role: 'user', content: 'Fix add().' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Fixing.' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'write_file', input: { path: 'a.js' } },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'write_file',
          output: { type: 'error-text', value: 'EACCES' },
        },
      ],
    },
  ],
  record: {
    tick: 2,
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 3,
    request: { keep: 1, added: [], ephemeral: ['gate:verification: Run the tests.'] },
    reply: { text: '' },
    calls: [],
    gates: {},
    knobs: {},
    decisions: [],
  },
};

describe('contextLines', () => {
  it('shows the request as the model saw it, one fact per line', () => {
    expect(contextLines(tick)).toEqual([
      '## system',
      'You fix bugs.',
      'Be brief.',
      '',
      '## messages',
      '[user] Fix add().',
      '[assistant] Fixing.',
      '[assistant] → write_file({"path":"a.js"}) #c1',
      '[tool] ← write_file #c1 (error): EACCES',
      '',
      '## tools',
      'write_file: Write a file.',
      'set_knob: ',
      '',
      '## ephemeral (this tick only)',
      'gate:verification: Run the tests.',
    ]);
  });
});
