import { agateSerializer, renderContext } from '@agate/testing';
import { produce } from 'immer';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { decide, markPending } from '../../approvals/decision-ledger.js';
import { createInitialState } from '../../guard-seam/initial-state.js';
import { Checkpoint, RenderError, System, Timeline, Tool, User } from '../../index.js';
import type { SessionState } from '../../state/session-state.js';
import { CheckpointDeclarationError } from './checkpoint-errors.js';

expect.addSnapshotSerializer(agateSerializer);

function Agent() {
  return (
    <>
      <System>You build features one task at a time.</System>
      <User>Add login, then logout.</User>
      <Timeline />
      <Tool
        name="write_file"
        description="Write a file."
        input={z.object({ path: z.string(), content: z.string() })}
        execute={() => 'ok'}
      />
      <Checkpoint id="T-1" task="Implement login" budget={5} />
      <Checkpoint id="T-2" task="Implement logout" />
    </>
  );
}

const signing = { sessionId: 'render', key: undefined, at: '2026-01-01T00:00:00.000Z' };

/** T-1 submitted at tick 3 (after two ticks of work). */
const submitted = produce(createInitialState('render'), (draft) => {
  draft.tick = 3;
  draft.guards.checkpoints.records['T-1'] = { state: 'unlocked', ticks: 2, openedAtTick: 1 };
  markPending(
    draft,
    'T-1',
    { cause: 'submit', tick: 3, by: 'model', summary: 'login done', reason: 'submitted' },
    signing,
  );
});

const seed = (state: SessionState) => {
  const { id: _id, ...rest } = state;
  return rest;
};

describe('what the model sees of checkpoints', () => {
  it('the first open checkpoint: its task, how to submit, the budget; submit_checkpoint offered', () => {
    const state = produce(createInitialState('render'), (draft) => {
      draft.guards.checkpoints.records['T-1'] = { state: 'unlocked', ticks: 2, openedAtTick: 1 };
    });
    expect(renderContext(<Agent />, seed(state))).toMatchSnapshot();
  });

  it('pending: says so (no model call is made in this state)', () => {
    const context = renderContext(<Agent />, seed(submitted));
    expect(context.ephemeral).toEqual([
      {
        text: 'Checkpoint T-1 is pending supervisor approval. Execution is blocked until a supervisor approves it.',
        source: 'checkpoint:T-1',
      },
    ]);
  });

  it('rejected: unlocked again, with a fresh budget and the feedback', () => {
    const state = produce(submitted, (draft) => {
      decide(
        draft,
        'T-1',
        { kind: 'rejected', by: 'ana', feedback: 'Hash the passwords.' },
        signing,
      );
    });
    expect(renderContext(<Agent />, seed(state))).toMatchSnapshot();
  });

  it('approved: the note on the next request, and the next checkpoint open', () => {
    const state = produce(submitted, (draft) => {
      decide(draft, 'T-1', { kind: 'approved', by: 'ana', note: 'Nice and small.' }, signing);
    });
    expect(renderContext(<Agent />, seed(state))).toMatchSnapshot();
    // One tick later the approval is no longer news.
    const later = produce(state, (draft) => {
      draft.tick += 1;
    });
    const texts = renderContext(<Agent />, seed(later)).ephemeral.map((b) => b.text);
    expect(texts.join('\n')).not.toContain('was approved');
    expect(texts[0]).toContain('Checkpoint T-2 is open (2 of 2)');
  });

  it('all approved: no instructions and no submit tool', () => {
    const state = produce(submitted, (draft) => {
      decide(draft, 'T-1', { kind: 'approved', by: 'ana' }, signing);
      markPending(
        draft,
        'T-2',
        { cause: 'submit', tick: 4, by: 'model', summary: 'logout done', reason: 'submitted' },
        signing,
      );
      draft.tick = 4;
      decide(draft, 'T-2', { kind: 'approved', by: 'ana' }, signing);
      draft.tick = 5;
    });
    const context = renderContext(<Agent />, seed(state));
    expect(context.tools.map((t) => t.name)).toEqual(['write_file']);
    expect(context.ephemeral).toEqual([]);
  });

  it('a hand-built "approved" with no approval in the ledger counts as pending', () => {
    const state = produce(createInitialState('render'), (draft) => {
      draft.guards.checkpoints.records['T-1'] = { state: 'approved', ticks: 1, openedAtTick: 1 };
    });
    const context = renderContext(<Agent />, seed(state));
    expect(context.ephemeral.map((b) => b.text)).toEqual([
      expect.stringContaining('Checkpoint T-1 is pending supervisor approval'),
    ]);
  });

  it.each([
    [{ id: '' }, /needs an id/],
    [{ id: 'T-1', budget: 0 }, /budget must be a whole number of ticks >= 1, got 0/],
    [{ id: 'T-1', budget: 2.5 }, /got 2.5/],
    [{ id: 'T-1', trigger: { fileWritten: '' } }, /trigger.fileWritten/],
  ])('refuses bad props %j with a CheckpointDeclarationError', (props, message) => {
    let thrown: unknown;
    try {
      renderContext(<Checkpoint {...props} />);
    } catch (error) {
      thrown = error;
    }
    // The renderer wraps what a component throws; the cause says what is wrong with the props.
    expect(thrown).toBeInstanceOf(RenderError);
    expect((thrown as RenderError).cause).toBeInstanceOf(CheckpointDeclarationError);
    expect((thrown as RenderError).message).toMatch(message);
  });

  it('refuses a <Tool> named submit_checkpoint', () => {
    expect(() =>
      renderContext(
        <>
          <Tool name="submit_checkpoint" input={z.object({})} execute={() => 'x'} />
          <Checkpoint id="T-1" />
        </>,
      ),
    ).toThrow(/reserves for checkpoints/);
  });
});
