import type { AgateEvent } from '@agate/core';
import { workspaceTracker } from '@agate/example-kit';
import { scriptedModel } from '@agate/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { runTodoAgent } from './agent.js';
import { offlineModel, PLAN } from './offline-model.js';
import { createPrinter, formatResult } from './print.js';
import { createWorkspace } from './workspace.js';

const { workspace, cleanup } = workspaceTracker(createWorkspace);
afterEach(cleanup);

describe('the todo agent, offline', () => {
  it('is refused until it really runs the tests, signs the step off with them and finishes', async () => {
    const root = await workspace();
    const events: AgateEvent[] = [];
    const printed: string[] = [];
    const print = createPrinter((t) => printed.push(t));
    const result = await runTodoAgent({
      model: offlineModel(),
      root,
      onEvent: (e) => {
        events.push(e);
        print(e);
      },
    });

    expect(result.status).toBe('completed');
    expect(result.ticks).toBe(8);

    // Tick 4: the sign-off without a test run is refused, and so is the completing write.
    const tick4 = events.filter((e) => e.type === 'tool:result' && e.tick === 4);
    expect(tick4.map((e) => e.type === 'tool:result' && [e.toolName, e.isError])).toEqual([
      ['complete_step', true],
      ['todo_write', true],
    ]);
    expect(JSON.stringify(tick4[0])).toContain('The command \\"node --test\\" was never run');
    expect(events.find((e) => e.type === 'tool:refused')).toMatchObject({
      tick: 4,
      toolName: 'todo_write',
      by: 'evidence',
    });

    // Tick 5: it tries to finish with a step open; <Todos requireComplete> refuses.
    const blocked = events.filter((e) => e.type === 'exit:blocked');
    expect(blocked).toMatchObject([
      { tick: 5, gates: ['todos'], reasons: ['Todo 2 "Run the test suite" is in_progress.'] },
    ]);

    // Tick 6: the real suite ran and passed; tick 7 signed the step off with it.
    const tests = events.find((e) => e.type === 'tool:result' && e.toolName === 'run_tests');
    expect(tests).toMatchObject({ isError: false, output: { exitCode: 0, passed: true } });
    expect(JSON.stringify(tests)).toContain('✔ add adds');
    const signOffs = events.flatMap((e) => (e.type === 'step:completed' ? [e] : []));
    expect(signOffs.map((e) => [e.tick, e.step, e.evidence.verified])).toEqual([
      [3, 1, true],
      [7, 2, true],
    ]);

    // The list, with the evidence of each step, is in the result.
    expect(result.todos).toEqual([
      {
        ...PLAN[0],
        status: 'completed',
        evidence: { verified: true, files: ['math.js'], tick: 3 },
      },
      {
        ...PLAN[1],
        status: 'completed',
        evidence: { verified: true, command: 'node --test', tick: 7 },
      },
    ]);
    expect(formatResult(result)).toContain(
      '2. [completed] Run the test suite (verified: node --test)',
    );
    expect(printed.join('')).toContain('refused by evidence');
  });

  it('a model that never runs the tests ends blocked, not completed', async () => {
    const root = await workspace();
    const model = scriptedModel(
      [
        {
          toolCalls: [
            {
              toolName: 'todo_write',
              input: { todos: PLAN.map((p) => ({ ...p, status: 'pending' })) },
            },
            {
              toolName: 'todo_write',
              input: { todos: PLAN.map((p) => ({ ...p, status: 'completed' })) },
            },
          ],
        },
        'Everything is done.',
      ],
      { whenExhausted: 'repeat-last' },
    );
    const result = await runTodoAgent({ model, root, maxBlocks: 2 });
    expect(result.status).toBe('blocked');
    expect(result.reason).toContain('2 items are not completed after 3 attempts to finish');
    expect(result.todos?.map((t) => t.status)).toEqual(['pending', 'pending']);
  });
});
