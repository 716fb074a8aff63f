import { formatContext, type ScriptedTurn, scriptedModel } from '@agate/testing';
import type { ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Checkpoint,
  createMemoryStore,
  createSession,
  Gate,
  Output,
  PhaseGates,
  type RunResult,
  System,
  Timeline,
  Todos,
  Tool,
  User,
} from '../../index.js';

/*
 * What the model reads as the result of a call that asked to finish, pinned as readable text:
 * the timeline the next request carries (`formatContext`'s messages), after a scripted run
 * where the finish is refused (by a <Gate>, <PhaseGates>, an <Output> schema error, open
 * <Todos>, an open <Checkpoint>) and then accepted. Only an accepted answer reads as accepted.
 */

const Answer = z.object({ summary: z.string() });
const answer = (summary: unknown): ScriptedTurn => ({
  toolCalls: [{ toolName: 'final_answer', input: { summary } }],
});
const call = (toolName: string, input: unknown = {}): ScriptedTurn => ({
  toolCalls: [{ toolName, input }],
});

function Base(props: { children?: ReactNode }) {
  return (
    <>
      <System>You fix add() in math.js.</System>
      <User>Fix add() and answer with a summary.</User>
      <Timeline />
      <Tool
        name="read_file"
        description="Read a file."
        input={z.object({ path: z.string() })}
        execute={({ path }) => `contents of ${path}`}
        category="read"
        evidence={{ kind: 'read', paths: (i) => [i.path] }}
      />
      <Tool
        name="search"
        input={z.object({ q: z.string() })}
        category="search"
        execute={() => ['math.js']}
      />
      <Tool
        name="edit_file"
        input={z.object({ path: z.string() })}
        category="patch"
        execute={() => 'ok'}
      />
      <Tool
        name="run_tests"
        input={z.object({})}
        category="verify"
        execute={() => ({ exitCode: 0, output: '# pass 1\n# fail 0' })}
      />
      <Output schema={Answer} maxBlocks={3} />
      {props.children}
    </>
  );
}

/** Runs until the script ends (or the run stops) and returns what the next request would carry. */
async function runAndRead(
  element: ReactNode,
  turns: ScriptedTurn[],
  approve?: string,
): Promise<{ results: RunResult[]; timeline: string }> {
  const session = createSession(element, {
    model: scriptedModel(turns),
    store: createMemoryStore(),
    // A fixed id: the checkpoint's refusal names the session in its approve command.
    id: 'finish-texts',
    maxTicks: 12,
  });
  try {
    const results = [await session.run()];
    if (approve !== undefined) {
      session.approve(approve, { by: 'ana' });
      results.push(await session.run());
    }
    return { results, timeline: messages(formatContext(session.render())) };
  } finally {
    session.dispose();
  }
}

/** The `tool:result` events of `final_answer`, in order, as the stream and the studio get them. */
function finishEvents(
  results: RunResult[],
): Array<{ tick: number; output: unknown; isError: boolean }> {
  return results
    .flatMap((r) => r.events)
    .flatMap((e) =>
      e.type === 'tool:result' && e.toolName === 'final_answer'
        ? [{ tick: e.tick, output: e.output, isError: e.isError }]
        : [],
    );
}

/** The `=== messages (n) ===` section of a formatted context. */
function messages(text: string): string {
  const start = text.indexOf('=== messages');
  const end = text.indexOf('\n\n=== ', start);
  return text.slice(start, end < 0 ? undefined : end);
}

describe('what a finish call reads', () => {
  it('<Gate>: refused with the gate and its instructions and the count, then accepted', async () => {
    const { results, timeline } = await runAndRead(
      <Base>
        <Gate
          name="tests-run"
          description="The tests must run before an answer"
          instructions="Run the tests with run_tests before you answer."
          initial="active"
          clearWhen={(tick) => tick.toolCalls.some((c) => c.toolName === 'run_tests')}
        />
      </Base>,
      [answer('fixed'), call('run_tests'), answer('fixed, tests pass')],
    );
    expect(results.map((r) => r.status)).toEqual(['completed']);
    expect(timeline).toMatchSnapshot();
  });

  it('<PhaseGates mode="block">: refused with the missing phases and "refusal n of max", then accepted', async () => {
    const { results, timeline } = await runAndRead(
      <Base>
        <PhaseGates mode="block" />
      </Base>,
      [
        answer('done'),
        call('search', { q: 'add' }),
        call('read_file', { path: 'math.js' }),
        call('edit_file', { path: 'math.js' }),
        call('run_tests'),
        answer('fixed, tests pass'),
      ],
    );
    expect(results.map((r) => r.status)).toEqual(['completed']);
    expect(timeline).toMatch(/Not accepted: Phase gates \(refusal 1 of \d+\)/);
    expect(timeline).toMatchSnapshot();
  });

  it('<Output>: a schema error is refused with the error and the count, then accepted', async () => {
    const { results, timeline } = await runAndRead(<Base />, [answer(42), answer('fixed')]);
    expect(results.map((r) => r.status)).toEqual(['completed']);
    expect(timeline).toMatchSnapshot();
  });

  it('<Todos requireComplete>: refused while an item is open, accepted once it is signed off and completed', async () => {
    const item = { content: 'Read math.js', activeForm: 'Reading math.js' };
    const { results, timeline } = await runAndRead(
      <Base>
        <Todos requireComplete maxBlocks={3} />
      </Base>,
      [
        call('todo_write', { todos: [{ ...item, status: 'in_progress' }] }),
        answer('done'),
        {
          toolCalls: [
            { toolName: 'read_file', input: { path: 'math.js' } },
            { toolName: 'complete_step', input: { step: 1, evidence: { files: ['math.js'] } } },
            { toolName: 'todo_write', input: { todos: [{ ...item, status: 'completed' }] } },
          ],
        },
        answer('read and signed off'),
      ],
    );
    expect(results.map((r) => r.status)).toEqual(['completed']);
    // The tick loop: the refusal is an exit:blocked by the todos, its event reads as the
    // timeline does, and only the answer given after the sign-off is the run's output.
    const [run] = results;
    expect(run?.events.filter((e) => e.type === 'exit:blocked')).toMatchObject([
      { tick: 2, gates: ['todos'] },
    ]);
    expect(finishEvents(results)).toEqual([
      { tick: 2, output: 'Not accepted: Todo 1 "Read math.js" is in_progress.', isError: true },
      { tick: 4, output: 'Final answer accepted.', isError: false },
    ]);
    expect(run?.output).toEqual({ summary: 'read and signed off' });
    expect(run?.todos).toMatchObject([{ status: 'completed' }]);
    expect(timeline).toMatchSnapshot();
  });

  it('<Checkpoint>: a finish while it is open is not accepted (the run waits for approval), then accepted', async () => {
    const { results, timeline } = await runAndRead(
      <Base>
        <Checkpoint id="T-1" task="Fix add() in math.js" />
      </Base>,
      [answer('done before review'), answer('done after review')],
      'T-1',
    );
    expect(results.map((r) => r.status)).toEqual(['awaiting-approval', 'completed']);
    // The tick loop: the first run ends awaiting approval with no output and its answer read
    // as not accepted; after the approval the same call completes the run with its output.
    const [first, second] = results;
    expect(first?.output).toBeUndefined();
    expect(first?.checkpoints).toEqual({ 'T-1': 'pending' });
    const events = finishEvents(results);
    expect(events.map((e) => e.isError)).toEqual([true, false]);
    expect(String(events[0]?.output)).toMatch(
      /^Not accepted: the run ended awaiting-approval before this answer was judged: Checkpoint "T-1" is awaiting supervisor approval/,
    );
    expect(events[1]?.output).toBe('Final answer accepted.');
    expect(second?.output).toEqual({ summary: 'done after review' });
    expect(second?.checkpoints).toEqual({ 'T-1': 'approved' });
    expect(timeline).toMatchSnapshot();
  });
});
