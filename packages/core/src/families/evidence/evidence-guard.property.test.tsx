import { type ScriptedTurn, scriptedModel } from '@agate/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TodoItem } from '../../entries/guards.js';
import { type AgateEvent, System, Timeline, Todos, Tool } from '../../index.js';
import { createSession } from '../../runtime/session.js';
import { textKey } from './normalize.js';

/**
 * The guard end to end: random scripts of todo_write, complete_step and command calls run
 * through real sessions. Whatever the model does, an item turns completed only after a
 * successful complete_step for it earlier in the same run.
 */

function Agent() {
  return (
    <>
      <System>Work the list.</System>
      <Timeline />
      <Tool
        name="check"
        input={z.object({ cmd: z.string() })}
        // Deterministic: commands starting with "ok" succeed.
        execute={({ cmd }) => ({ exitCode: cmd.startsWith('ok') ? 0 : 1 })}
        evidence={{ kind: 'command', command: (i) => i.cmd, ok: (o) => o.exitCode === 0 }}
      />
      <Todos />
    </>
  );
}

const CONTENTS = ['Fix', 'Test', 'Ship'];
const COMMANDS = ['ok 1', 'ok 2', 'bad 1'];
const todo = fc.record({
  content: fc.constantFrom(...CONTENTS),
  activeForm: fc.constantFrom('Fixing', 'Testing', 'Shipping'),
  status: fc.constantFrom('pending', 'in_progress', 'completed'),
});
const write = fc.array(todo, { maxLength: 4 }).map((todos) => ({
  toolName: 'todo_write',
  input: { todos },
}));
const run = fc.constantFrom(...COMMANDS).map((cmd) => ({ toolName: 'check', input: { cmd } }));
const signOff = (commands: readonly string[]) =>
  fc
    .record({
      step: fc.oneof(
        fc.constantFrom(...CONTENTS, 'Fixing', 'Nope'),
        fc.integer({ min: 0, max: 4 }),
      ),
      command: fc.constantFrom(...commands),
    })
    .map(({ step, command }) => ({
      toolName: 'complete_step',
      input: { step, evidence: { verification: command } },
    }));

/** One run of the script; the event log. */
async function play(turns: ScriptedTurn[]): Promise<AgateEvent[]> {
  const events: AgateEvent[] = [];
  const session = createSession(<Agent />, {
    model: scriptedModel([...turns, 'Done.']),
    onEvent: (e) => events.push(e),
    maxTicks: turns.length + 1,
  });
  await session.run();
  session.dispose();
  return events;
}

/** Every newly completed item in each list change was signed off earlier in the run. */
function assertSignedBeforeCompleted(events: readonly AgateEvent[]): void {
  let list: TodoItem[] = [];
  const signed: Array<{ content: string; activeForm: string }> = [];
  for (const e of events) {
    if (e.type === 'step:completed') {
      const item = list[e.step - 1];
      expect(item?.content).toBe(e.content);
      signed.push({ content: e.content, activeForm: item?.activeForm ?? '' });
    }
    if (e.type !== 'todos:changed') continue;
    const before = new Set(
      list.filter((i) => i.status === 'completed').map((i) => textKey(i.content)),
    );
    for (const item of e.todos) {
      if (item.status !== 'completed' || before.has(textKey(item.content))) continue;
      const ok = signed.some(
        (s) =>
          textKey(s.content) === textKey(item.content) ||
          textKey(s.activeForm) === textKey(item.activeForm),
      );
      expect(ok).toBe(true);
    }
    list = e.todos;
  }
}

type Call = { toolName: string; input: unknown };

const turnsOf = (calls: fc.Arbitrary<Call>, extra: fc.Arbitrary<Call[]>[] = []) =>
  fc.array(
    fc
      .oneof(fc.array(calls, { minLength: 1, maxLength: 3 }), ...extra)
      .map((toolCalls) => ({ toolCalls })),
    { maxLength: 8 },
  );

/** An honest step: plan, run a passing command, sign the item off with it, mark it completed. */
const honest = fc
  .record({ todos: fc.array(todo, { minLength: 1, maxLength: 3 }), pick: fc.nat() })
  .map(({ todos, pick }): Call[] => {
    const target = todos[pick % todos.length]!;
    const pending = todos.map((t) => ({ ...t, status: t === target ? 'pending' : t.status }));
    const done = todos.map((t) => ({ ...t, status: t === target ? 'completed' : t.status }));
    return [
      { toolName: 'todo_write', input: { todos: pending } },
      { toolName: 'check', input: { cmd: 'ok 1' } },
      {
        toolName: 'complete_step',
        input: { step: target.content, evidence: { verification: 'ok 1' } },
      },
      { toolName: 'todo_write', input: { todos: done } },
    ];
  });

describe('the evidence guard, end to end', () => {
  it('without a valid sign-off no write ever produces a completed item', async () => {
    // Sign-offs only with commands that failed or never ran.
    await fc.assert(
      fc.asyncProperty(
        turnsOf(fc.oneof(write, run, signOff(['bad 1', 'never ran']))),
        async (turns) => {
          const events = await play(turns);
          for (const e of events) {
            if (e.type === 'todos:changed') {
              expect(e.todos.filter((i) => i.status === 'completed')).toEqual([]);
            }
            expect(e.type).not.toBe('step:completed');
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('with any mix of calls, an item turns completed only after its sign-off', async () => {
    let completions = 0;
    await fc.assert(
      fc.asyncProperty(
        turnsOf(fc.oneof(write, run, signOff(COMMANDS)), [honest]),
        async (turns) => {
          const events = await play(turns);
          assertSignedBeforeCompleted(events);
          completions += events.filter(
            (e) => e.type === 'todos:changed' && e.todos.some((i) => i.status === 'completed'),
          ).length;
        },
      ),
      { numRuns: 60 },
    );
    // Not vacuous: the scripts do complete items (honest steps are a third of the turns).
    expect(completions).toBeGreaterThan(10);
  });
});
