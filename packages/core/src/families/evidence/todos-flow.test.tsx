import { execFile } from 'node:child_process';
import { type ScriptedModel, type ScriptedTurn, scriptedModel } from '@agate/testing';
import type { ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TodoInput } from '../../entries/guards.js';
import {
  type AgateEvent,
  InvalidElementError,
  System,
  Timeline,
  Todos,
  Tool,
  User,
  useTick,
} from '../../index.js';
import { createSession, type Session, type SessionOptions } from '../../runtime/session.js';

// ---- the agent under test --------------------------------------------------------------

/** Runs a real shell command; a non-zero exit is a normal result the model reads. */
function sh(cmd: string): Promise<{ exitCode: number; output: string }> {
  return new Promise((resolve) => {
    execFile('sh', ['-c', cmd], (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ exitCode: code, output: `${stdout}${stderr}`.trim() });
    });
  });
}

function Worker(props: { requireComplete?: boolean; maxBlocks?: number; children?: ReactNode }) {
  return (
    <>
      <System>You work through a todo list and sign off each step with evidence.</System>
      <User>Fix add() in math.js and make the tests pass.</User>
      <Timeline />
      <Tool
        name="shell"
        description="Run a shell command."
        input={z.object({ cmd: z.string() })}
        execute={({ cmd }) => sh(cmd)}
        evidence={{ kind: 'command', command: (i) => i.cmd, ok: (o) => o.exitCode === 0 }}
      />
      <Tool
        name="read_file"
        description="Read a file."
        input={z.object({ path: z.string() })}
        execute={({ path }) => {
          if (path.includes('missing')) throw new Error(`no file ${path}`);
          return `contents of ${path}`;
        }}
        evidence={{ kind: 'read', paths: (i) => [i.path] }}
      />
      <Tool
        name="edit_file"
        description="Write a file."
        input={z.object({ path: z.string(), content: z.string() })}
        execute={({ path }) => ({ ok: !path.includes('readonly'), path })}
        evidence={{ kind: 'edit', paths: (i) => [i.path], ok: (o) => o.ok }}
      />
      {props.children !== undefined ? (
        props.children
      ) : (
        <Todos
          requireComplete={props.requireComplete ?? false}
          {...(props.maxBlocks !== undefined ? { maxBlocks: props.maxBlocks } : {})}
        />
      )}
    </>
  );
}

/** `<Todos requireComplete>` only on the first tick, then unmounted. */
function Fleeting() {
  return <Worker>{useTick() <= 1 ? <Todos requireComplete maxBlocks={1} /> : null}</Worker>;
}

// ---- scripted turns --------------------------------------------------------------------

const PLAN: TodoInput[] = [
  { content: 'Fix add() in math.js', activeForm: 'Fixing add() in math.js', status: 'in_progress' },
  { content: 'Run the tests', activeForm: 'Running the tests', status: 'pending' },
];
const withStatus = (statuses: TodoInput['status'][]): TodoInput[] =>
  PLAN.map((item, i) => ({ ...item, status: statuses[i] ?? item.status }));

const call = (toolName: string, input: unknown): ScriptedTurn => ({
  toolCalls: [{ toolName, input }],
});
const writeTodos = (todos: TodoInput[]) => call('todo_write', { todos });
const shell = (cmd: string) => call('shell', { cmd });
const completeStep = (step: string | number, evidence: Record<string, unknown>) =>
  call('complete_step', { step, evidence });

// ---- helpers ---------------------------------------------------------------------------

function start(
  turns: ScriptedTurn[],
  element: ReactNode = <Worker />,
  options: Partial<SessionOptions> & { repeat?: boolean } = {},
) {
  const { repeat, ...rest } = options;
  const model = scriptedModel(turns, repeat ? { whenExhausted: 'repeat-last' } : {});
  const events: AgateEvent[] = [];
  const session = createSession(element, { model, onEvent: (e) => events.push(e), ...rest });
  return { model, events, session };
}

async function runAgent(...args: Parameters<typeof start>) {
  const started = start(...args);
  const result = await started.session.run();
  return { ...started, result };
}

function results(events: readonly AgateEvent[], toolName?: string) {
  return events.flatMap((e) =>
    e.type === 'tool:result' && (toolName === undefined || e.toolName === toolName) ? [e] : [],
  );
}

function refusals(events: readonly AgateEvent[]) {
  return events.flatMap((e) => (e.type === 'tool:refused' ? [e] : []));
}

/** The last (ephemeral) message of the i-th request, as text. */
function lastMessage(model: ScriptedModel, i: number): string {
  const message = model.calls[i]?.prompt.at(-1);
  if (!message) throw new Error(`no call ${i}`);
  return typeof message.content === 'string'
    ? message.content
    : message.content.map((p) => ('text' in p ? p.text : JSON.stringify(p))).join('\n');
}

const statuses = (session: Session) => session.state.guards.todos.items.map((i) => i.status);

// ---- the rules -------------------------------------------------------------------------

describe('sign-off, then a completing write', () => {
  it('a real command signs the step off and the write marks it completed', async () => {
    const { events, result, session } = await runAgent([
      writeTodos(PLAN),
      shell('test 2 -eq 2'),
      completeStep('Fix add() in math.js', { verification: 'test  2 -eq 2' }),
      writeTodos(withStatus(['completed', 'in_progress'])),
      'Step 1 is done.',
    ]);
    expect(result.status).toBe('completed');
    expect(results(events).every((r) => !r.isError)).toBe(true);
    expect(results(events, 'complete_step')[0]?.output).toBe(
      'Step 1 "Fix add() in math.js" signed off (verified: ran "test 2 -eq 2"). Now mark it completed with todo_write.',
    );
    const evidence = { verified: true, command: 'test 2 -eq 2', tick: 3 };
    expect(session.state.guards.todos.items).toEqual([
      { ...PLAN[0], status: 'completed', evidence },
      { ...PLAN[1], status: 'in_progress' },
    ]);
    // Hosts read it from the state, the result and the events.
    expect(result.todos).toEqual(session.state.guards.todos.items);
    expect(events.filter((e) => e.type === 'step:completed')).toEqual([
      {
        type: 'step:completed',
        path: [],
        tick: 3,
        step: 1,
        content: 'Fix add() in math.js',
        evidence,
      },
    ]);
    expect(events.filter((e) => e.type === 'todos:changed').map((e) => e.tick)).toEqual([1, 4]);
  });

  it('the rendered list shows each item and the evidence it was signed off with', async () => {
    const { model } = await runAgent([
      writeTodos(PLAN),
      shell('true'),
      completeStep(1, { verification: 'true', manual: 'looked right' }),
      'Done.',
    ]);
    expect(lastMessage(model, 0)).toBe(
      [
        '## Todo list',
        'No items yet. Plan the work with todo_write.',
        'Keep the list current with todo_write. An item may be marked completed only after complete_step signed it off in this turn with evidence the host checks (a command you ran, files you read or edited); a completing write without it is rejected.',
      ].join('\n'),
    );
    expect(lastMessage(model, 3).split('\n').slice(0, 4)).toEqual([
      '## Todo list',
      '1. [in_progress] Fix add() in math.js (Fixing add() in math.js)',
      '   signed off, verified: ran "true"; plus a manual note (unverified): "looked right"',
      '2. [pending] Run the tests (Running the tests)',
    ]);
  });
});

describe('a completing write without a sign-off', () => {
  it('is rejected, names each offending item, and leaves the list as it was', async () => {
    const { events, session, result } = await runAgent([
      writeTodos(PLAN),
      shell('true'),
      writeTodos(withStatus(['completed', 'completed'])),
      'Done.',
    ]);
    expect(result.status).toBe('completed');
    const [refused] = refusals(events);
    expect(refused).toMatchObject({ toolName: 'todo_write', by: 'evidence', tick: 3 });
    expect(refused?.message).toBe(
      [
        'todo_write rejected; the todo list is unchanged.',
        'These items are newly marked completed, but no complete_step signed them off in this turn:',
        '- "Fix add() in math.js"',
        '- "Run the tests"',
        'Do the work, call complete_step for each of them first (with the evidence: the command you ran, the files you read or edited), then write the list again.',
      ].join('\n'),
    );
    expect(results(events, 'todo_write')[1]).toMatchObject({ isError: true });
    expect(session.state.guards.todos.items).toEqual(PLAN);
    expect(events.filter((e) => e.type === 'todos:changed')).toHaveLength(1);
  });

  it('a sign-off covers only its own item', async () => {
    const { events, session } = await runAgent([
      writeTodos(PLAN),
      shell('true'),
      completeStep(1, { verification: 'true' }),
      writeTodos(withStatus(['completed', 'completed'])),
      'Done.',
    ]);
    const [refused] = refusals(events);
    expect(refused?.message).toContain('- "Run the tests"');
    expect(refused?.message).not.toContain('- "Fix add()');
    expect(statuses(session)).toEqual(['in_progress', 'pending']);
  });

  it('items already completed may stay completed, and other changes go through', async () => {
    const { events, session } = await runAgent([
      writeTodos(PLAN),
      shell('true'),
      completeStep(1, { verification: 'true' }),
      writeTodos(withStatus(['completed', 'pending'])),
      writeTodos([...withStatus(['completed', 'in_progress']), { ...PLAN[1]!, content: 'Ship' }]),
      'Done.',
    ]);
    expect(refusals(events)).toEqual([]);
    expect(statuses(session)).toEqual(['completed', 'in_progress', 'pending']);
    // The evidence stays with the item that kept its content.
    expect(session.state.guards.todos.items[0]?.evidence).toMatchObject({ command: 'true' });
  });
});

describe('verification against the receipts of the turn', () => {
  it('refuses a command that was never run, and names the ones that were', async () => {
    const { events, session } = await runAgent([
      writeTodos(PLAN),
      shell('true'),
      completeStep(2, { verification: 'npm test' }),
      writeTodos(withStatus(['in_progress', 'completed'])),
      'Done.',
    ]);
    const [result] = results(events, 'complete_step');
    expect(result?.isError).toBe(true);
    expect(result?.output).toContain(
      'The command "npm test" was never run in this turn. Run it first, then call complete_step with exactly that command. Commands run in this turn: "true".',
    );
    expect(refusals(events)).toHaveLength(1);
    expect(statuses(session)).toEqual(['in_progress', 'pending']);
    expect(session.state.guards.todos.items[1]?.evidence).toBeUndefined();
  });

  it('refuses a command that ran but failed', async () => {
    const { events, session } = await runAgent([
      writeTodos(PLAN),
      shell('exit 3'),
      completeStep('Run the tests', { verification: 'exit 3' }),
      'Done.',
    ]);
    expect(results(events, 'shell')[0]?.output).toMatchObject({ exitCode: 3 });
    const [result] = results(events, 'complete_step');
    expect(result?.isError).toBe(true);
    expect(result?.output).toContain('The command "exit 3" ran but failed');
    expect(session.state.guards.todos.items[1]?.evidence).toBeUndefined();
  });

  it('the latest run of a command decides: passing after a failure counts, failing after a pass does not', async () => {
    const { events } = await runAgent([
      writeTodos(PLAN),
      shell('test -z ""'),
      shell('test -z "x"'),
      completeStep(1, { verification: 'test -z "x"' }),
      shell('test -z "x" || true'),
      completeStep(1, { verification: 'test -z "x" || true' }),
      'Done.',
    ]);
    const outputs = results(events, 'complete_step').map((r) => [r.isError, r.output]);
    expect(outputs[0]?.[0]).toBe(true);
    expect(outputs[0]?.[1]).toContain('ran but failed');
    expect(outputs[1]?.[0]).toBe(false);
  });

  it('needs at least one evidence field', async () => {
    const { events } = await runAgent([
      writeTodos(PLAN),
      completeStep(1, {}),
      completeStep(1, { files: [], verification: '  ' }),
      'Done.',
    ]);
    for (const r of results(events, 'complete_step')) {
      expect(r.isError).toBe(true);
      expect(r.output).toContain('complete_step needs evidence: give at least one of');
    }
  });

  it('accepts manual evidence, recorded as manual and unverified, and says so', async () => {
    const { events, session, result } = await runAgent([
      writeTodos(PLAN),
      completeStep('Running the tests', { manual: 'I checked it by hand.' }),
      writeTodos(withStatus(['in_progress', 'completed'])),
      'Done.',
    ]);
    expect(result.status).toBe('completed');
    expect(results(events, 'complete_step')[0]).toMatchObject({
      isError: false,
      output:
        'Step 2 "Run the tests" signed off with manual evidence, recorded as manual and UNVERIFIED: the host could not check it against anything that ran. Now mark it completed with todo_write.',
    });
    expect(session.state.guards.todos.items[1]).toEqual({
      ...PLAN[1],
      status: 'completed',
      evidence: { verified: false, manual: 'I checked it by hand.', tick: 2 },
    });
  });

  it('checks files against read and edit receipts, and diff against edit receipts', async () => {
    const { events, session } = await runAgent([
      writeTodos(PLAN),
      {
        toolCalls: [
          { toolName: 'read_file', input: { path: './src/a.ts' } },
          { toolName: 'edit_file', input: { path: 'src/b.ts', content: 'x' } },
          { toolName: 'read_file', input: { path: 'missing.ts' } },
          { toolName: 'edit_file', input: { path: 'readonly.ts', content: 'x' } },
        ],
      },
      // Read is not an edit; a failed read or edit is no evidence; an unseen path is missing.
      completeStep(1, {
        files: ['src/a.ts', 'missing.ts', 'other.ts'],
        diff: ['src//a.ts', 'readonly.ts'],
      }),
      completeStep(1, { files: ['src/./a.ts', 'src/b.ts'], diff: ['./src//b.ts'] }),
      'Done.',
    ]);
    const [refused, accepted] = results(events, 'complete_step');
    expect(refused?.isError).toBe(true);
    expect(refused?.output).toBe(
      [
        'Tool "complete_step" failed: complete_step refused: the evidence does not match what ran in this turn.',
        '- files: reading or editing "missing.ts" failed in this turn.',
        '- files: "other.ts" was not read or edited in this turn.',
        '- diff: editing "readonly.ts" failed in this turn.',
        '- diff: "src/a.ts" was not edited in this turn.',
      ].join('\n'),
    );
    expect(accepted).toMatchObject({ isError: false });
    expect(session.state.guards.todos.items[0]?.evidence).toEqual({
      verified: true,
      files: ['src/a.ts', 'src/b.ts'],
      diff: ['src/b.ts'],
      tick: 4,
    });
  });
});

describe('matching the step', () => {
  it.each([
    ['content', 'Run the tests'],
    ['content, other spacing and case', '  run THE   tests '],
    ['activeForm', 'Running the tests'],
    ['number', 2],
    ['numeric string', '2'],
  ])('by %s', async (_how, step) => {
    const { events, session } = await runAgent([
      writeTodos(PLAN),
      shell('true'),
      completeStep(step, { verification: 'true' }),
      writeTodos(withStatus(['in_progress', 'completed'])),
      'Done.',
    ]);
    expect(results(events, 'complete_step')[0]?.output).toMatch(
      /^Step 2 "Run the tests" signed off/,
    );
    expect(statuses(session)).toEqual(['in_progress', 'completed']);
  });

  it('no match is a tool error that lists the items', async () => {
    const { events } = await runAgent([
      writeTodos(PLAN),
      shell('true'),
      completeStep('Deploy', { verification: 'true' }),
      completeStep(3, { verification: 'true' }),
      'Done.',
    ]);
    const [byName, byNumber] = results(events, 'complete_step');
    expect(byName?.output).toBe(
      [
        'Tool "complete_step" failed: No todo item matches step "Deploy". Name one item by its content, its activeForm or its number:',
        '1. [in_progress] Fix add() in math.js (Fixing add() in math.js)',
        '2. [pending] Run the tests (Running the tests)',
      ].join('\n'),
    );
    expect(byNumber?.output).toContain('No todo item matches step 3.');
  });
});

describe('receipts last one turn', () => {
  it('a command run in an earlier run() does not count', async () => {
    const { session, events } = start([
      writeTodos(PLAN),
      shell('true'),
      'Ran it.',
      completeStep(1, { verification: 'true' }),
      'Could not sign off.',
    ]);
    expect((await session.run()).status).toBe('completed');
    await session.run();
    expect(results(events, 'complete_step')[0]?.output).toContain(
      'The command "true" was never run in this turn.',
    );
  });

  it('a sign-off from an earlier run() does not count for a completing write', async () => {
    const { session, events } = start([
      writeTodos(PLAN),
      shell('true'),
      completeStep(1, { verification: 'true' }),
      'Signed off.',
      writeTodos(withStatus(['completed', 'pending'])),
      'Done.',
    ]);
    await session.run();
    await session.run();
    expect(refusals(events).map((r) => r.toolName)).toEqual(['todo_write']);
    expect(statuses(session)).toEqual(['in_progress', 'pending']);
    // The evidence summary itself persists with the item.
    expect(session.state.guards.todos.items[0]?.evidence).toMatchObject({ command: 'true' });
  });

  it('a session restored from a snapshot starts with no receipts; none are in the snapshot', async () => {
    const first = start([writeTodos(PLAN), shell('true'), 'Ran it.']);
    await first.session.run();
    const snapshot = first.session.snapshot();
    expect(Object.keys(snapshot.state.guards.todos)).toEqual(['items', 'blocks']);
    expect(JSON.stringify(snapshot.state.guards.todos)).not.toContain('"true"');
    expect(JSON.stringify(first.session.state.guards.todos)).toBe(
      JSON.stringify(snapshot.state.guards.todos),
    );

    const second = start(
      [completeStep(1, { verification: 'true' }), writeTodos(withStatus(['completed'])), 'Done.'],
      <Worker />,
      { snapshot },
    );
    await second.session.run();
    expect(results(second.events, 'complete_step')[0]?.output).toContain('was never run');
    expect(refusals(second.events)).toHaveLength(1);
    expect(statuses(second.session)).toEqual(['in_progress', 'pending']);
  });

  it('session.tick() outside run(): one turn from the first such tick until the next run()', async () => {
    const { session, events } = start([
      writeTodos(PLAN),
      shell('true'),
      completeStep(1, { verification: 'true' }), // tick() after tick(): same turn, accepted
      'Done.', // run(): a new turn
      shell('true'),
      'Ran it.',
      completeStep(1, { verification: 'true' }), // tick() after a run(): a new turn again
    ]);
    await session.tick();
    await session.tick();
    await session.tick();
    await session.run();
    await session.run();
    await session.tick();
    const outputs = results(events, 'complete_step').map((r) => r.isError);
    expect(outputs).toEqual([false, true]);
  });
});

describe('nothing about receipts reaches the request', () => {
  it('tools and schemas are identical before and after receipts exist, and so is the rendered list', async () => {
    const { model } = await runAgent([
      writeTodos(PLAN),
      shell('true'),
      { toolCalls: [{ toolName: 'read_file', input: { path: 'a.ts' } }] },
      completeStep(1, { verification: 'true' }),
      writeTodos(withStatus(['completed', 'pending'])),
      'Done.',
    ]);
    expect(model.calls).toHaveLength(6);
    const tools = model.calls[0]?.tools;
    expect(tools?.map((t) => t.name)).toEqual([
      'shell',
      'read_file',
      'edit_file',
      'todo_write',
      'complete_step',
    ]);
    for (const c of model.calls) expect(c.tools).toEqual(tools);
    // Receipts exist from tick 2 on; the list the model sees changes only with the list itself.
    expect(lastMessage(model, 1)).not.toBe(lastMessage(model, 0));
    expect(lastMessage(model, 2)).toBe(lastMessage(model, 1));
    expect(lastMessage(model, 3)).toBe(lastMessage(model, 1));
    expect(lastMessage(model, 1)).toMatch(/^## Todo list/);
    const system = model.calls.map((c) => JSON.stringify(c.prompt[0]));
    expect(new Set(system).size).toBe(1);
  });
});

describe('<Todos requireComplete>', () => {
  it('refuses exit while items are not completed, naming them, then lets the run complete', async () => {
    const { events, model, result } = await runAgent(
      [
        writeTodos(PLAN),
        'All done.',
        shell('true'),
        completeStep(1, { verification: 'true' }),
        completeStep(2, { verification: 'true' }),
        writeTodos(withStatus(['completed', 'completed'])),
        'All done.',
      ],
      <Worker requireComplete />,
    );
    expect(result.status).toBe('completed');
    const blocked = events.filter((e) => e.type === 'exit:blocked');
    expect(blocked).toMatchObject([
      {
        tick: 2,
        gates: ['todos'],
        final: false,
        reasons: [
          'Todo 1 "Fix add() in math.js" is in_progress.',
          'Todo 2 "Run the tests" is pending.',
        ],
      },
    ]);
    const notice = lastMessage(model, 2);
    expect(notice).toContain('EXIT REFUSED: <Todos requireComplete>: 2 items are not completed.');
    expect(notice).toContain(
      '4 more attempts to finish with items not completed will be refused; the one after that ends the run as blocked (not completed).',
    );
  });

  it('is bounded: past maxBlocks the run ends blocked, naming the items', async () => {
    const { events, result, session } = await runAgent(
      [writeTodos(PLAN), 'Done, trust me.'],
      <Worker requireComplete maxBlocks={2} />,
      { repeat: true },
    );
    expect(result.status).toBe('blocked');
    expect(result.ticks).toBe(4);
    expect(result.reason).toContain(
      '<Todos requireComplete>: 2 items are not completed after 3 attempts to finish (maxBlocks 2): 1. "Fix add() in math.js" (in_progress), 2. "Run the tests" (pending).',
    );
    expect(events.filter((e) => e.type === 'exit:blocked').map((e) => e.final)).toEqual([
      false,
      false,
      true,
    ]);
    expect(session.state.guards.todos.blocks).toBe(3);
  });

  it('the refusal count goes back to 0 once the list is complete', async () => {
    const { session, result } = await runAgent(
      [
        writeTodos(PLAN.slice(0, 1)),
        'Done.',
        shell('true'),
        completeStep(1, { verification: 'true' }),
        writeTodos(withStatus(['completed']).slice(0, 1)),
        'Done.',
      ],
      <Worker requireComplete />,
    );
    expect(result.status).toBe('completed');
    expect(session.state.guards.todos.blocks).toBe(0);
  });

  it('a bad maxBlocks fails where it is written', async () => {
    const { result } = await runAgent(['Done.'], <Worker requireComplete maxBlocks={-1} />);
    expect(result.status).toBe('error');
    expect(result.error?.message).toContain('<Todos maxBlocks=-1> needs a whole number >= 0.');
  });

  it('an incomplete list at maxTicks ends the run blocked, not max-ticks', async () => {
    const { result } = await runAgent([writeTodos(PLAN)], <Worker requireComplete />, {
      repeat: true,
      maxTicks: 3,
    });
    expect(result.status).toBe('blocked');
    expect(result.reason).toContain(
      'the todo list has 2 items not completed (1. "Fix add() in math.js" in_progress, 2. "Run the tests" pending)',
    );
  });

  it('without requireComplete the list never blocks exit; an empty list never does', async () => {
    expect((await runAgent([writeTodos(PLAN), 'Done.'])).result.status).toBe('completed');
    expect((await runAgent(['Done.'], <Worker requireComplete />)).result.status).toBe('completed');
  });

  it('keeps blocking after it unmounts while items are open, and keeps its tools', async () => {
    const { result, model, events } = await runAgent([writeTodos(PLAN), 'Done.'], <Fleeting />, {
      repeat: true,
    });
    expect(result.status).toBe('blocked');
    expect(result.reason).toContain('2 items are not completed after 2 attempts');
    expect(model.calls[1]?.tools).toEqual(model.calls[0]?.tools);
    expect(lastMessage(model, 1)).toContain('## Todo list');
    expect(events.find((e) => e.type === 'warning')).toMatchObject({ code: 'todos-unmounted' });
  });
});

describe('misuse', () => {
  it('a <Tool> named todo_write or complete_step is refused at render', async () => {
    const { result } = await runAgent(
      ['Done.'],
      <Worker>
        <Todos />
        <Tool name="complete_step" input={z.object({})} execute={() => 'mine'} />
      </Worker>,
    );
    expect(result.status).toBe('error');
    expect(result.error).toBeInstanceOf(InvalidElementError);
    expect(result.error?.message).toContain('"complete_step", which <Todos> reserves');
  });
});

describe('<Todos requireComplete> cannot be escaped by deleting the list (issue 22.6)', () => {
  it('a write that leaves out an open item, or writes an empty list, is rejected', async () => {
    const { session, events } = await runAgent(
      [writeTodos(PLAN), writeTodos([PLAN[0]!]), writeTodos([]), 'Done.'],
      <Worker requireComplete maxBlocks={1} />,
      { repeat: true, maxTicks: 8 },
    );
    const writes = results(events, 'todo_write');
    expect(writes[1]).toMatchObject({ isError: true });
    expect(String(writes[1]?.output)).toContain('"Run the tests" (pending)');
    expect(String(writes[1]?.output)).toContain("status 'dropped' and a reason");
    expect(writes[2]).toMatchObject({ isError: true });
    // The list is as it was: both items, still open; the run cannot complete.
    expect(statuses(session)).toEqual(['in_progress', 'pending']);
    expect(session.state.status).toBe('blocked');
  });

  it('dropping an item takes a reason, which the list, RunResult.todos and the refusal show', async () => {
    const dropped = [
      PLAN[0]!,
      { ...PLAN[1]!, status: 'dropped' as const, reason: 'The repository has no test runner.' },
    ];
    const noReason = [PLAN[0]!, { ...PLAN[1]!, status: 'dropped' as const }];
    const { model, result, events } = await runAgent(
      [writeTodos(PLAN), writeTodos(noReason), writeTodos(dropped), 'Done.'],
      <Worker requireComplete maxBlocks={3} />,
      { repeat: true, maxTicks: 8 },
    );
    const writes = results(events, 'todo_write');
    expect(String(writes[1]?.output)).toContain('Dropping an item needs a reason: "Run the tests"');
    expect(writes[2]).toMatchObject({ isError: false });
    expect(result.todos?.[1]).toMatchObject({
      status: 'dropped',
      reason: 'The repository has no test runner.',
    });
    expect(lastMessage(model, 3)).toContain(
      '2. [dropped] Run the tests (Running the tests) — dropped: The repository has no test runner.',
    );
    // The first item is still open: finishing is refused for it, not for the dropped one.
    expect(result.status).toBe('blocked');
    expect(result.reason).toContain('"Fix add() in math.js"');
    expect(result.reason).not.toContain('"Run the tests"');
  });

  it('a run whose items were all dropped is not completed', async () => {
    const allDropped = PLAN.map((item) => ({
      ...item,
      status: 'dropped' as const,
      reason: 'Out of scope.',
    }));
    const { result } = await runAgent(
      [writeTodos(PLAN), writeTodos(allDropped), 'Nothing to do.'],
      <Worker requireComplete maxBlocks={1} />,
      { repeat: true, maxTicks: 8 },
    );
    expect(result.status).toBe('blocked');
    expect(result.reason).toContain('every item was dropped, so nothing was done');
    expect(result.todos?.map((t) => t.status)).toEqual(['dropped', 'dropped']);
  });
});
