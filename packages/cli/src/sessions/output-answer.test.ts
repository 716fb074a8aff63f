import type { SessionState } from '@agate/core';
import { describe, expect, it } from 'vitest';
import { storedOutput } from './output-answer.js';

const call = (id: string, input: unknown) => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'final_answer', input }],
});
const result = (id: string, type: 'text' | 'error-text') => ({
  role: 'tool',
  content: [
    { type: 'tool-result', toolCallId: id, toolName: 'final_answer', output: { type, value: 'x' } },
  ],
});
const state = (status: SessionState['status'], timeline: unknown[]) =>
  ({ status, timeline }) as unknown as Pick<SessionState, 'status' | 'timeline'>;

describe('storedOutput', () => {
  it('is the last final_answer whose result is not an error, in a completed session', () => {
    const timeline = [
      call('a', { v: 1 }),
      result('a', 'text'),
      call('b', { v: 2 }),
      result('b', 'error-text'),
    ];
    expect(storedOutput(state('completed', timeline))).toEqual({ value: { v: 1 } });
    expect(
      storedOutput(state('completed', [...timeline, call('c', null), result('c', 'text')])),
    ).toEqual({
      value: null,
    });
  });

  it('is nothing for a session that did not complete, or has no answer, or holds junk', () => {
    expect(
      storedOutput(state('blocked', [call('a', { v: 1 }), result('a', 'text')])),
    ).toBeUndefined();
    expect(
      storedOutput(state('completed', [{ role: 'assistant', content: 'Done.' }])),
    ).toBeUndefined();
    expect(
      storedOutput(
        state('completed', [null, 7, { content: [null, { toolName: 'final_answer' }] }]),
      ),
    ).toBeUndefined();
  });
});
