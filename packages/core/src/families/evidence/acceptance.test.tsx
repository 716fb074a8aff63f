// Acceptance scenarios for issue 8 (evidence receipts, <Todos>), one per rule of the issue,
// written from the words and docs/evidence.md, on scripted models.
import { type ScriptedModel, type ScriptedTurn, scriptedModel } from '@agate/testing';
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import type { ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TodoInput, TodoItem } from '../../entries/guards.js';
import {
  type AgateEvent,
  createSession,
  type Session,
  type SessionOptions,
  type SessionSnapshot,
  System,
  Timeline,
  Todos,
  Tool,
  User,
  useTodos,
} from '../../index.js';

// ---- the agent: a fake shell (exit code decided by the command), a reader and an editor ----

const EXIT_CODES: Record<string, number> = { 'npm test': 0, 'npm run lint': 1 };

let snapshotHook: (() => void) | undefined;

function Agent(props: { requireComplete?: boolean; maxBlocks?: number; probe?: TodoItem[][] }) {
  return (
    <>
      <System>Work through the todo list; sign off each step with complete_step.</System>
      <User>Fix add() in math.js and make the tests pass.</User>
      <Timeline />
      <Tool
        name="shell"
        description="Run a shell command."
        input={z.object({ cmd: z.string() })}
        execute={({ cmd }) => ({
          exitCode: EXIT_CODES[cmd.trim().replace(/\s+/g, ' ')] ?? 127,
          output: `ran ${cmd}`,
        })}
        evidence={{
          kind: 'command',
          command: (input) => input.cmd,
          ok: (output) => output.exitCode === 0,
        }}
      />
      <Tool
        name="read_file"
        description="Read a file."
        input={z.object({ path: z.string() })}
        execute={({ path }) => `contents of ${path}`}
        evidence={{ kind: 'read', paths: (input) => [input.path] }}
      />
      <Tool
        name="edit_file"
        description="Write a file."
        input={z.object({ path: z.string(), content: z.string() })}
        execute={({ path }) => `wrote ${path}`}
        evidence={{ kind: 'edit', paths: (input) => [input.path] }}
      />
      <Tool
        name="save"
        description="Save the session."
        input={z.object({})}
        execute={() => {
          snapshotHook?.();
          return 'saved';
        }}
      />
      <Todos
        requireComplete={props.requireComplete ?? false}
        {...(props.maxBlocks !== undefined ? { maxBlocks: props.maxBlocks } : {})}
      />
      {props.probe ? <Probe into={props.probe} /> : null}
    </>
  );
}

function Probe(props: { into: TodoItem[][] }): ReactNode {
  props.into.push([...useTodos()]);
  return null;
}

const PLAN: TodoInput[] = [
  { content: 'Fix add() in math.js', activeForm: 'Fixing add() in math.js', status: 'in_progress' },
  { content: 'Run the tests', activeForm: 'Running the tests', status: 'pending' },
];
const withStatus = (...statuses: TodoInput['status'][]): TodoInput[] =>
  PLAN.map((item, i) => ({ ...item, status: statuses[i] ?? item.status }));

const calls = (...list: [string, unknown][]): ScriptedTurn => ({
  toolCalls: list.map(([toolName, input]) => ({ toolName, input })),
});
const todoWrite = (todos: TodoInput[]) => calls(['todo_write', { todos }]);
const shell = (cmd: string) => calls(['shell', { cmd }]);
const completeStep = (step: string | number, evidence: Record<string, unknown>) =>
  calls(['complete_step', { step, evidence }]);

function start(
  turns: ScriptedTurn[],
  element: ReactNode = <Agent />,
  opts: Partial<SessionOptions> = {},
) {
  const model = scriptedModel(turns);
  const events: AgateEvent[] = [];
  const session = createSession(element, { model, onEvent: (e) => events.push(e), ...opts });
  return { model, events, session };
}

async function runAgent(
  turns: ScriptedTurn[],
  element?: ReactNode,
  opts?: Partial<SessionOptions>,
) {
  const started = start(turns, element, opts);
  const result = await started.session.run();
  return { ...started, result };
}

/** Every tool result the model read, by tool name, in order (from the last request). */
function toolResultsSeen(
  model: ScriptedModel,
  toolName: string,
): { text: string; isError: boolean }[] {
  const prompt: LanguageModelV4Prompt = model.calls.at(-1)?.prompt ?? [];
  const out: { text: string; isError: boolean }[] = [];
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result' || part.toolName !== toolName) continue;
      const o = part.output;
      const text =
        o.type === 'text' || o.type === 'error-text'
          ? o.value
          : o.type === 'json' || o.type === 'error-json'
            ? JSON.stringify(o.value)
            : JSON.stringify(o);
      out.push({ text, isError: o.type.startsWith('error') });
    }
  }
  return out;
}

const statuses = (session: Session) => session.state.guards.todos.items.map((i) => i.status);

// ---- receipts and the completing write -------------------------------------------------

describe('issue 8: sign-off with a real command, then a completing write', () => {
  it('a successful command receipt signs the step off and the write completes the item', async () => {
    const { session, model, result } = await runAgent([
      todoWrite(withStatus('completed', 'in_progress')), // item 1 newly completed: refused
      todoWrite(withStatus('in_progress', 'in_progress')),
      shell('npm test'),
      completeStep('Run the tests', { verification: 'npm test' }),
      todoWrite(withStatus('in_progress', 'completed')),
      'done',
    ]);
    expect(result.status).toBe('completed');
    expect(statuses(session)).toEqual(['in_progress', 'completed']);
    const signOff = toolResultsSeen(model, 'complete_step')[0];
    expect(signOff?.isError).toBe(false);
    expect(signOff?.text).toContain('npm test');
    expect(session.state.guards.todos.items[1]?.evidence).toMatchObject({
      verified: true,
      command: 'npm test',
    });
  });
});

describe('issue 8: todo_write newly completing an item without a sign-off', () => {
  it('rejects the whole write, keeps the list, names each offending item and says to call complete_step first', async () => {
    const { session, model, events } = await runAgent([
      todoWrite(withStatus('in_progress', 'pending')),
      // Newly completes both items, and also changes item 1's wording: all of it is rejected.
      todoWrite([
        { ...PLAN[0]!, content: 'Fix add()', status: 'completed' },
        { ...PLAN[1]!, status: 'completed' },
      ]),
      'stop',
    ]);
    const before = withStatus('in_progress', 'pending');
    expect(
      session.state.guards.todos.items.map(({ content, activeForm, status }) => ({
        content,
        activeForm,
        status,
      })),
    ).toEqual(before);
    const rejected = toolResultsSeen(model, 'todo_write')[1];
    expect(rejected?.isError).toBe(true);
    expect(rejected?.text).toContain('Fix add()');
    expect(rejected?.text).toContain('Run the tests');
    expect(rejected?.text).toMatch(/call complete_step.*first/);
    expect(events.filter((e) => e.type === 'todos:changed')).toHaveLength(1);
  });

  it('items already completed may stay completed in a later run (no new sign-off needed)', async () => {
    const first = await runAgent([
      todoWrite(withStatus('in_progress', 'pending')),
      shell('npm test'),
      completeStep(1, { verification: 'npm test' }),
      todoWrite(withStatus('completed', 'in_progress')),
      'end of turn 1',
    ]);
    expect(statuses(first.session)).toEqual(['completed', 'in_progress']);
    const snapshot = first.session.snapshot();
    const { session, model } = await runAgent(
      [todoWrite(withStatus('completed', 'pending')), 'end of turn 2'],
      <Agent />,
      { snapshot },
    );
    expect(toolResultsSeen(model, 'todo_write')[0]?.isError).toBe(false);
    expect(statuses(session)).toEqual(['completed', 'pending']);
  });
});

describe('issue 8: tool calls in one response run one at a time, in order', () => {
  it('run, sign off and complete in a single response', async () => {
    const { session, model } = await runAgent([
      todoWrite(withStatus('in_progress', 'pending')),
      calls(
        ['shell', { cmd: 'npm test' }],
        ['complete_step', { step: 2, evidence: { verification: 'npm test' } }],
        ['todo_write', { todos: withStatus('in_progress', 'completed') }],
      ),
      'done',
    ]);
    expect(toolResultsSeen(model, 'complete_step')[0]?.isError).toBe(false);
    expect(statuses(session)).toEqual(['in_progress', 'completed']);
  });

  it('a sign-off after the completing write in the same response is too late', async () => {
    const { session, model } = await runAgent([
      todoWrite(withStatus('in_progress', 'pending')),
      calls(
        ['shell', { cmd: 'npm test' }],
        ['todo_write', { todos: withStatus('in_progress', 'completed') }],
        ['complete_step', { step: 2, evidence: { verification: 'npm test' } }],
      ),
      'stop',
    ]);
    expect(toolResultsSeen(model, 'todo_write')[1]?.isError).toBe(true);
    expect(statuses(session)).toEqual(['in_progress', 'pending']);
  });

  it('a sign-off of one item does not complete another', async () => {
    const { session, model } = await runAgent([
      todoWrite(withStatus('in_progress', 'pending')),
      shell('npm test'),
      completeStep(1, { verification: 'npm test' }),
      todoWrite(withStatus('completed', 'completed')),
      'stop',
    ]);
    const rejected = toolResultsSeen(model, 'todo_write')[1];
    expect(rejected?.isError).toBe(true);
    expect(rejected?.text).toContain('"Run the tests"');
    expect(rejected?.text).not.toContain('"Fix add() in math.js"');
    expect(statuses(session)).toEqual(['in_progress', 'pending']);
  });
});

// ---- complete_step: matching -------------------------------------------------------------

describe('issue 8: complete_step matches by content, activeForm and 1-based number', () => {
  const cases: [string, string | number][] = [
    ['content', 'Run the tests'],
    ['activeForm', 'Running the tests'],
    ['number', 2],
    ['numeric string', '2'],
  ];
  for (const [how, step] of cases) {
    it(`by ${how} (${JSON.stringify(step)})`, async () => {
      const { session, model } = await runAgent([
        todoWrite(withStatus('in_progress', 'pending')),
        shell('npm test'),
        completeStep(step, { verification: 'npm test' }),
        todoWrite(withStatus('in_progress', 'completed')),
        'done',
      ]);
      expect(toolResultsSeen(model, 'complete_step')[0]?.isError).toBe(false);
      expect(statuses(session)).toEqual(['in_progress', 'completed']);
      expect(session.state.guards.todos.items[0]?.evidence).toBeUndefined();
    });
  }

  it('no match: a tool error that lists the items', async () => {
    const { model } = await runAgent([
      todoWrite(withStatus('in_progress', 'pending')),
      shell('npm test'),
      completeStep('Deploy', { verification: 'npm test' }),
      'stop',
    ]);
    const seen = toolResultsSeen(model, 'complete_step')[0];
    expect(seen?.isError).toBe(true);
    expect(seen?.text).toContain('Fix add() in math.js');
    expect(seen?.text).toContain('Run the tests');
  });

  it('a numeric string with surrounding spaces is still the number', async () => {
    const { model } = await runAgent([
      todoWrite(withStatus('in_progress', 'pending')),
      shell('npm test'),
      completeStep(' 2 ', { verification: 'npm test' }),
      'stop',
    ]);
    expect(toolResultsSeen(model, 'complete_step')[0]?.text).toContain('Run the tests');
    expect(toolResultsSeen(model, 'complete_step')[0]?.isError).toBe(false);
  });

  it('a number out of range is no match either', async () => {
    const { model } = await runAgent([
      todoWrite(withStatus('in_progress', 'pending')),
      shell('npm test'),
      completeStep(3, { verification: 'npm test' }),
      'stop',
    ]);
    const seen = toolResultsSeen(model, 'complete_step')[0];
    expect(seen?.isError).toBe(true);
    expect(seen?.text).toContain('Run the tests');
  });
});

// ---- complete_step: evidence -------------------------------------------------------------

describe('issue 8: verification against command receipts', () => {
  it('equal after collapsing whitespace counts', async () => {
    const { model } = await runAgent([
      todoWrite(withStatus('in_progress', 'pending')),
      shell('npm   test'),
      completeStep(2, { verification: ' npm test ' }),
      'stop',
    ]);
    expect(toolResultsSeen(model, 'complete_step')[0]?.isError).toBe(false);
  });

  it('a command never run is refused', async () => {
    const { model, session } = await runAgent([
      todoWrite(withStatus('in_progress', 'pending')),
      completeStep(2, { verification: 'npm test' }),
      todoWrite(withStatus('in_progress', 'completed')),
      'stop',
    ]);
    expect(toolResultsSeen(model, 'complete_step')[0]?.isError).toBe(true);
    expect(toolResultsSeen(model, 'todo_write')[1]?.isError).toBe(true);
    expect(statuses(session)).toEqual(['in_progress', 'pending']);
  });

  it('a command that ran and failed is refused with "ran but failed"', async () => {
    const { model, session } = await runAgent([
      todoWrite(withStatus('in_progress', 'pending')),
      shell('npm run lint'),
      completeStep(2, { verification: 'npm run lint' }),
      todoWrite(withStatus('in_progress', 'completed')),
      'stop',
    ]);
    const seen = toolResultsSeen(model, 'complete_step')[0];
    expect(seen?.isError).toBe(true);
    expect(seen?.text).toContain('ran but failed');
    expect(statuses(session)).toEqual(['in_progress', 'pending']);
  });

  it('a failed call still leaves a receipt, marked failed (a tool that throws)', async () => {
    const { model } = await runAgent(
      [
        todoWrite(withStatus('in_progress', 'pending')),
        shell('boom'),
        completeStep(2, { verification: 'boom' }),
        'stop',
      ],
      <>
        <Timeline />
        <Tool
          name="shell"
          input={z.object({ cmd: z.string() })}
          execute={() => {
            throw new Error('exploded');
          }}
          evidence={{ kind: 'command', command: (input) => input.cmd }}
        />
        <Todos />
      </>,
    );
    expect(toolResultsSeen(model, 'complete_step')[0]?.text).toContain('ran but failed');
  });
});

describe('issue 8: files and diff against read and edit receipts', () => {
  it('files: a read receipt and an edit receipt both count (normalized relative paths)', async () => {
    const { model, session } = await runAgent([
      todoWrite(withStatus('in_progress', 'pending')),
      calls(
        ['read_file', { path: './src/a.ts' }],
        ['edit_file', { path: 'src//b.ts', content: 'x' }],
      ),
      completeStep(1, { files: ['src/a.ts', './src/b.ts'] }),
      'stop',
    ]);
    expect(toolResultsSeen(model, 'complete_step')[0]?.isError).toBe(false);
    expect(session.state.guards.todos.items[0]?.evidence).toMatchObject({ verified: true });
  });

  it('files: a path never read nor edited is refused', async () => {
    const { model } = await runAgent([
      todoWrite(withStatus('in_progress', 'pending')),
      calls(['read_file', { path: 'src/a.ts' }]),
      completeStep(1, { files: ['src/other.ts'] }),
      'stop',
    ]);
    const seen = toolResultsSeen(model, 'complete_step')[0];
    expect(seen?.isError).toBe(true);
    expect(seen?.text).toContain('src/other.ts');
  });

  it('files: a read that failed does not count', async () => {
    const { model } = await runAgent(
      [
        todoWrite(withStatus('in_progress', 'pending')),
        calls(['read_file', { path: 'gone.ts' }]),
        completeStep(1, { files: ['gone.ts'] }),
        'stop',
      ],
      <>
        <Timeline />
        <Tool
          name="read_file"
          input={z.object({ path: z.string() })}
          execute={({ path }) => {
            throw new Error(`no such file ${path}`);
          }}
          evidence={{ kind: 'read', paths: (input) => [input.path] }}
        />
        <Todos />
      </>,
    );
    const seen = toolResultsSeen(model, 'complete_step')[0];
    expect(seen?.isError).toBe(true);
    expect(seen?.text).toContain('gone.ts');
  });

  it('diff: an edit receipt counts, a read receipt does not', async () => {
    const { model } = await runAgent([
      todoWrite(withStatus('in_progress', 'pending')),
      calls(['read_file', { path: 'src/a.ts' }], ['edit_file', { path: 'math.js', content: 'x' }]),
      completeStep(1, { diff: ['src/a.ts'] }),
      completeStep(1, { diff: ['./math.js'] }),
      'stop',
    ]);
    const [readOnly, edited] = toolResultsSeen(model, 'complete_step');
    expect(readOnly?.isError).toBe(true);
    expect(readOnly?.text).toContain('src/a.ts');
    expect(edited?.isError).toBe(false);
  });
});

describe('issue 8: manual evidence', () => {
  it('is accepted, recorded as manual and unverified, and the tool result says so', async () => {
    const { model, session } = await runAgent([
      todoWrite(withStatus('in_progress', 'pending')),
      completeStep(2, { manual: 'I checked it by hand' }),
      todoWrite(withStatus('in_progress', 'completed')),
      'done',
    ]);
    const seen = toolResultsSeen(model, 'complete_step')[0];
    expect(seen?.isError).toBe(false);
    expect(seen?.text).toMatch(/manual/i);
    expect(seen?.text).toMatch(/unverified/i);
    expect(session.state.guards.todos.items[1]).toMatchObject({
      status: 'completed',
      evidence: { verified: false, manual: 'I checked it by hand' },
    });
  });

  it('evidence with no field at all is refused', async () => {
    const { model } = await runAgent([
      todoWrite(withStatus('in_progress', 'pending')),
      completeStep(2, {}),
      'stop',
    ]);
    expect(toolResultsSeen(model, 'complete_step')[0]?.isError).toBe(true);
  });
});

// ---- turns ---------------------------------------------------------------------------------

describe('issue 8: receipts are turn-only', () => {
  it('a receipt from an earlier run() does not count', async () => {
    const first = start([
      todoWrite(withStatus('in_progress', 'pending')),
      shell('npm test'),
      'tests ran',
    ]);
    await first.session.run();
    // The same session, a second run() with more script: re-create the model for this turn.
    const second = start(
      [
        completeStep(2, { verification: 'npm test' }),
        todoWrite(withStatus('in_progress', 'completed')),
        'stop',
      ],
      <Agent />,
      { snapshot: first.session.snapshot() },
    );
    await second.session.run();
    expect(toolResultsSeen(second.model, 'complete_step')[0]?.isError).toBe(true);
    expect(statuses(second.session)).toEqual(['in_progress', 'pending']);
  });

  it('a receipt from an earlier run() of the same session object does not count', async () => {
    const { session, model } = start([
      todoWrite(withStatus('in_progress', 'pending')),
      shell('npm test'),
      'tests ran', // end of the first run()
      completeStep(2, { verification: 'npm test' }),
      'stop',
    ]);
    expect((await session.run()).status).toBe('completed');
    await session.run();
    const seen = toolResultsSeen(model, 'complete_step')[0];
    expect(seen?.isError).toBe(true);
    expect(seen?.text).toContain('npm test');
  });

  it('a sign-off from an earlier run() does not let a later run() complete the item', async () => {
    const { session, model } = start([
      todoWrite(withStatus('in_progress', 'pending')),
      shell('npm test'),
      completeStep(2, { verification: 'npm test' }),
      'signed off, end of the first run()',
      todoWrite(withStatus('in_progress', 'completed')),
      'stop',
    ]);
    await session.run();
    await session.run();
    expect(toolResultsSeen(model, 'complete_step')[0]?.isError).toBe(false);
    expect(toolResultsSeen(model, 'todo_write')[1]?.isError).toBe(true);
    expect(statuses(session)).toEqual(['in_progress', 'pending']);
  });

  it('a receipt from before a snapshot restore does not count', async () => {
    let saved: SessionSnapshot | undefined;
    const first = start([
      todoWrite(withStatus('in_progress', 'pending')),
      shell('npm test'),
      calls(['save', {}]), // snapshot taken mid-turn, after the receipt exists
      'later',
    ]);
    snapshotHook = () => {
      saved = first.session.snapshot();
    };
    await first.session.run();
    snapshotHook = undefined;
    expect(saved).toBeDefined();
    expect(JSON.stringify(saved)).not.toMatch(/receipt/i);
    const restored = start(
      [
        completeStep(2, { verification: 'npm test' }),
        todoWrite(withStatus('in_progress', 'completed')),
        'stop',
      ],
      <Agent />,
      { snapshot: saved as SessionSnapshot },
    );
    await restored.session.run();
    expect(toolResultsSeen(restored.model, 'complete_step')[0]?.isError).toBe(true);
    expect(statuses(restored.session)).toEqual(['in_progress', 'pending']);
  });
});

describe('issue 8: nothing about receipts reaches the prompt or the schemas', () => {
  it('the request tool list and tool schemas are identical before and after receipts exist', async () => {
    const { model } = await runAgent([
      shell('npm test'),
      calls(['read_file', { path: 'a.ts' }], ['edit_file', { path: 'a.ts', content: 'x' }]),
      'done',
    ]);
    expect(model.calls).toHaveLength(3);
    const before = JSON.stringify(model.calls[0]?.tools);
    expect(JSON.stringify(model.calls[1]?.tools)).toBe(before);
    expect(JSON.stringify(model.calls[2]?.tools)).toBe(before);
    // The system text is unchanged too.
    const system = (i: number) =>
      JSON.stringify(model.calls[i]?.prompt.filter((m) => m.role === 'system'));
    expect(system(2)).toBe(system(0));
  });
});

// ---- requireComplete, useTodos, RunResult --------------------------------------------------

describe('issue 8: <Todos requireComplete>', () => {
  it('refuses exit naming the open items, bounded by maxBlocks', async () => {
    const { result, events, model } = await runAgent(
      [
        todoWrite(withStatus('in_progress', 'pending')),
        'finished',
        'finished',
        'finished',
        'finished',
      ],
      <Agent requireComplete maxBlocks={2} />,
    );
    const blocked = events.flatMap((e) => (e.type === 'exit:blocked' ? [e] : []));
    expect(blocked.map((e) => e.final)).toEqual([false, false, true]);
    expect(blocked[0]?.gates).toEqual(['todos']);
    expect(JSON.stringify(blocked[0])).toContain('Run the tests');
    expect(JSON.stringify(blocked[0])).toContain('Fix add() in math.js');
    expect(result.status).toBe('blocked');
    expect(result.reason).toContain('Run the tests');
    expect(model.calls).toHaveLength(4);
  });

  it('maxTicks running out with open items ends blocked, not max-ticks', async () => {
    const { result } = await runAgent(
      [todoWrite(withStatus('in_progress', 'pending')), shell('ls'), shell('ls')],
      <Agent requireComplete />,
      { maxTicks: 3 },
    );
    expect(result.status).toBe('blocked');
    expect(result.reason).toContain('Run the tests');
  });

  it('lets the run finish once every item is completed', async () => {
    const { result } = await runAgent(
      [
        todoWrite(withStatus('in_progress', 'pending')),
        'finished',
        shell('npm test'),
        completeStep(1, { verification: 'npm test' }),
        completeStep(2, { verification: 'npm test' }),
        todoWrite(withStatus('completed', 'completed')),
        'finished',
      ],
      <Agent requireComplete />,
    );
    expect(result.status).toBe('completed');
  });
});

describe('issue 8: hosts read the list', () => {
  it('from session.state, useTodos() and RunResult.todos', async () => {
    const probe: TodoItem[][] = [];
    const { session, result } = await runAgent(
      [todoWrite(withStatus('in_progress', 'pending')), 'stop'],
      <Agent probe={probe} />,
    );
    expect(result.todos).toEqual(session.state.guards.todos.items);
    expect(result.todos?.map((t) => t.content)).toEqual(PLAN.map((t) => t.content));
    expect(probe[0]).toEqual([]);
    expect(probe.at(-1)).toEqual(session.state.guards.todos.items);
  });
});
