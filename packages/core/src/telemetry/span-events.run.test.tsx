import { type ScriptedTurn, scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSession, System, Timeline, Todos, Tool, User } from '../index.js';
import { memoryTracing } from './__fixtures__/span-tree.js';

const PLAN = [
  { content: 'Fix add() in math.js', activeForm: 'Fixing add()', status: 'in_progress' },
  { content: 'Run the tests', activeForm: 'Running the tests', status: 'pending' },
] as const;

const call = (toolName: string, input: unknown): ScriptedTurn => ({
  toolCalls: [{ toolName, input }],
});

/** Plan, run a command, sign step 1 off with it, finish; the long history is pruned. */
const TURNS: ScriptedTurn[] = [
  call('todo_write', { todos: PLAN }),
  call('shell', { cmd: 'npm test' }),
  call('complete_step', { step: 1, evidence: { verification: 'npm test' } }),
  'Step 1 is signed off.',
];

function Worker() {
  return (
    <>
      <System>You work through a todo list.</System>
      <User>Fix add() in math.js.</User>
      <Timeline />
      <Tool
        name="shell"
        description="Run a command."
        input={z.object({ cmd: z.string() })}
        execute={() => ({ exitCode: 0, output: 'ok '.repeat(600) })}
        evidence={{ kind: 'command', command: (i) => i.cmd, ok: (o) => o.exitCode === 0 }}
      />
      <Todos />
    </>
  );
}

describe('span events of a run', () => {
  it('puts todo and step events on the tool call that made them, pruning on the tick', async () => {
    const tracing = memoryTracing();
    const session = createSession(<Worker />, {
      model: scriptedModel(TURNS),
      context: { maxTokens: 1_200 },
      telemetry: { tracer: tracing.tracer },
    });
    const result = await session.run();
    expect(result.reason).toBeUndefined();
    expect(result.status).toBe('completed');
    const spans = tracing.exporter.getFinishedSpans();
    const eventsOf = (name: string) =>
      spans.filter((s) => s.name === name).flatMap((s) => s.events.map((e) => e.name));

    const [write] = spans.filter((s) => s.name === 'execute_tool todo_write');
    expect(write?.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'agate.todos.changed',
        {
          'agate.todos.total': 2,
          'agate.todos.pending': 1,
          'agate.todos.in_progress': 1,
          'agate.todos.completed': 0,
        },
      ],
    ]);
    const [step] = spans.filter((s) => s.name === 'execute_tool complete_step');
    expect(step?.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'agate.step.completed',
        {
          'agate.todo.step': 1,
          'agate.todo.evidence.verified': true,
          'agate.todo.evidence.kinds': ['command'],
        },
      ],
    ]);
    // The items' text is the model's: absent without recordOutputs.
    expect(JSON.stringify(spans.map((s) => s.events))).not.toContain('Fix add()');
    expect(eventsOf('agate.tick')).toContain('agate.context.pruned');
  });
});
