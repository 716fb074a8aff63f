import { scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSession, Knob, Session, System, Timeline, Tool, User } from '../index.js';
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

describe("the families' methods on Session", () => {
  it('are members of Session itself, and work detached from the instance', async () => {
    const session = createSession(
      <>
        <Knob name="mode" description="Plan or build" options={['plan', 'build']} initial="plan" />
        <User>Go.</User>
        <Timeline />
      </>,
      { model: scriptedModel(['Done.']) },
    );
    session.render();
    // Declared by the class, not attached by a merge: one definition for every instance.
    expect(Object.getOwnPropertyDescriptor(Session.prototype, 'continueEvaluator')?.get).toBeTypeOf(
      'function',
    );
    const { setKnob, approveToolCall } = session;
    setKnob('mode', 'build');
    expect(session.state.guards.gates.knobs.mode).toBe('build');
    expect(() => approveToolCall('call_unknown', { by: 'ana' })).toThrow('call_unknown');
    expect(session.continueEvaluator).toBeUndefined();
    await expect(session.run()).resolves.toMatchObject({ status: 'completed' });
  });
});
