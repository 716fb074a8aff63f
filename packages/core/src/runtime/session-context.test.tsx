import { scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RenderError, SessionStateError, System, Timeline, Tool, User, useTick } from '../index.js';
import { createAgateRoot } from '../renderer/root.js';
import { run } from './run.js';
import { useDeclaration } from './use-declaration.js';
import { useSession } from './use-session.js';

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

  // The state's context sits on the components' floor and the handles' in the runtime: each hook
  // still refuses to run without a session, with the same error naming the hook.
  it.each([
    ['<Timeline>', () => <Timeline />, 'useTimeline()'],
    ['useTick()', () => <Reading />, 'useTick()'],
    ['useSession()', () => <UsingSession />, 'useSession()'],
    ['useDeclaration()', () => <Declaring />, 'Declaring'],
  ])('refuses %s outside a session with SessionStateError', (_, element, hook) => {
    const root = createAgateRoot();
    let thrown: unknown;
    try {
      root.render(element());
    } catch (error) {
      thrown = error;
    }
    expect(RenderError.isInstance(thrown)).toBe(true);
    const cause = (thrown as Error).cause;
    expect(SessionStateError.isInstance(cause)).toBe(true);
    expect((cause as Error).message).toContain(`${hook} was called outside an Agate session`);
  });
});

function UsingSession() {
  useSession();
  return null;
}
