import { scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { System, Timeline, Tool, User } from '../index.js';
import { run } from './run.js';

function Agent() {
  return (
    <>
      <System>You are a calculator.</System>
      <User>What is 2 + 3?</User>
      <Timeline />
      <Tool
        name="add"
        description="Add two numbers"
        input={z.object({ a: z.number(), b: z.number() })}
        execute={({ a, b }) => a + b}
      />
    </>
  );
}

describe('run', () => {
  it('runs a tool call then completes', async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'add', input: { a: 2, b: 3 } }] },
      'The answer is 5.',
    ]);
    const result = await run(<Agent />, { model });
    expect(result.status).toBe('completed');
    expect(result.text).toBe('The answer is 5.');
    expect(result.ticks).toBe(2);
    expect(result.timeline).toHaveLength(3);
    expect(model.calls).toHaveLength(2);
  });
});
