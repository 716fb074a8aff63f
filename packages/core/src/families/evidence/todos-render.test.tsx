import { agateSerializer, renderContext } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { System, Timeline, Todos, Tool, User, useTodos } from '../../index.js';
import type { TodosState } from './todo-types.js';

expect.addSnapshotSerializer(agateSerializer);

const todos: TodosState = {
  blocks: 0,
  items: [
    {
      content: 'Fix add() in math.js',
      activeForm: 'Fixing add() in math.js',
      status: 'completed',
      evidence: { verified: true, command: 'npm test', diff: ['math.js'], tick: 3 },
    },
    {
      content: 'Update the changelog',
      activeForm: 'Updating the changelog',
      status: 'completed',
      evidence: { verified: false, manual: 'Added a line under 1.2.1.', tick: 4 },
    },
    { content: 'Run the linter', activeForm: 'Running the linter', status: 'in_progress' },
  ],
};

function Agent(props: { requireComplete?: boolean }) {
  const items = useTodos();
  return (
    <>
      <System>{`You work through a list of ${items.length} items.`}</System>
      <User>Fix add() in math.js.</User>
      <Timeline />
      <Tool
        name="shell"
        description="Run a command."
        input={z.object({ cmd: z.string() })}
        execute={() => ({ exitCode: 0 })}
        evidence={{ kind: 'command', command: (i) => i.cmd }}
      />
      <Todos requireComplete={props.requireComplete ?? false} />
    </>
  );
}

describe('<Todos> in the context', () => {
  it('the list with each item’s evidence as ephemeral content, and the two tools', () => {
    expect(renderContext(<Agent requireComplete />, { guards: { todos } })).toMatchSnapshot();
  });

  it('an empty list', () => {
    expect(renderContext(<Agent />).ephemeral).toEqual([
      {
        source: 'todos',
        text: [
          '## Todo list',
          'No items yet. Plan the work with todo_write.',
          'Keep the list current with todo_write. An item may be marked completed only after complete_step signed it off in this turn with evidence the host checks (a command you ran, files you read or edited); a completing write without it is rejected.',
        ].join('\n'),
      },
    ]);
  });

  it('without <Todos> there are no todo tools and no list', () => {
    const context = renderContext(
      <>
        <System>Plain.</System>
        <Timeline />
      </>,
      { guards: { todos } },
    );
    expect(context.tools).toEqual([]);
    expect(context.ephemeral).toEqual([]);
  });
});
