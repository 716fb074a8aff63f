import { scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { System, Timeline, Tool, User, useTick } from '../index.js';
import { run } from './run.js';
import { useDeclaration } from './use-declaration.js';

const renders = { declaring: 0, reading: 0 };

/** Declares something and reads nothing else: what <ContinueGate>, <Checkpoint>, ... do. */
function Declaring() {
  renders.declaring += 1;
  useDeclaration('Declaring', { kind: 'guard', family: 'test', name: 'test:x', config: {} });
  return null;
}

function Reading() {
  renders.reading += 1;
  useTick();
  return null;
}

describe('the session context', () => {
  it('re-renders readers of the state every tick, and declaring components only when their props change', async () => {
    renders.declaring = 0;
    renders.reading = 0;
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'noop', input: {} }] },
      { toolCalls: [{ toolName: 'noop', input: {} }] },
      'Done.',
    ]);
    const result = await run(
      <>
        <System>Test.</System>
        <User>Go.</User>
        <Timeline />
        <Tool name="noop" description="Nothing." input={z.object({})} execute={() => 'ok'} />
        <Declaring />
        <Reading />
      </>,
      { model },
    );
    expect(result.ticks).toBe(3);
    expect(renders.reading).toBe(3);
    expect(renders.declaring).toBe(1);
  });
});
