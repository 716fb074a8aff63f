import { scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import {
  type AgateEvent,
  approveCheckpoint,
  createMemoryStore,
  createSession,
  run,
} from '../../index.js';
import { type ChildKind, Parent } from './__fixtures__/agents.js';

const delegate = (task: string, toolCallId = 'call_1') => ({
  toolCalls: [{ toolName: 'reviewer', input: { task }, toolCallId }],
});
const toolOutput = (timeline: unknown, id: string) => {
  for (const message of timeline as Array<{ role: string; content: unknown }>) {
    if (message.role !== 'tool') continue;
    for (const part of message.content as Array<{ toolCallId: string; output: unknown }>) {
      if (part.toolCallId === id) return part.output;
    }
  }
  return undefined;
};

describe('<SubAgent>', () => {
  it("a call runs the child; its final text is the tool result, its usage adds into the parent's", async () => {
    const child = scriptedModel([
      {
        toolCalls: [{ toolName: 'run_tests', input: {} }],
        usage: { inputTokens: 100, outputTokens: 10 },
      },
      { text: 'Looks good: tests pass.', usage: { inputTokens: 120, outputTokens: 20 } },
    ]);
    const parent = scriptedModel([
      { ...delegate('review math.js'), usage: { inputTokens: 50, outputTokens: 5 } },
      { text: 'Reviewed.', usage: { inputTokens: 60, outputTokens: 6 } },
    ]);
    const events: AgateEvent[] = [];
    const result = await run(<Parent kind="plain" childModel={child} />, {
      model: parent,
      onEvent: (e) => events.push(e),
    });
    expect(result.status).toBe('completed');
    expect(toolOutput(result.timeline, 'call_1')).toEqual({
      type: 'text',
      value: 'Looks good: tests pass.',
    });
    // The child got the task from the call's input, and its own tools.
    expect(JSON.stringify(child.calls[0]?.prompt)).toContain('review math.js');
    expect(child.calls[0]?.tools?.map((t) => t.name)).toEqual(['run_tests']);
    expect(result.usage).toEqual({ inputTokens: 330, outputTokens: 41, totalTokens: 371 });
    // The child's tool call and the parent's own call.
    expect(result.subAgents?.call_1?.status).toBe('completed');
    expect(result.subAgents?.call_1?.name).toBe('reviewer');
    expect(result.subAgents?.call_1?.ticks).toBe(2);
    // Events carry their path: [] (root) for the parent's, the call's segment for the child's.
    const childTools = events.filter((e) => e.type === 'tool:call' && (e.path?.length ?? 0) > 0);
    expect(childTools.map((e) => [e.path, e.type === 'tool:call' && e.toolName])).toEqual([
      [['reviewer#call_1'], 'run_tests'],
    ]);
    expect(events.find((e) => e.type === 'run:start')?.path).toEqual([]);
  });

  it("runs on the parent's model unless `model` is given", async () => {
    const model = scriptedModel([delegate('check it'), 'Child answer.', 'Parent done.']);
    const result = await run(<Parent kind="plain" />, { model });
    expect(result.status).toBe('completed');
    expect(model.calls).toHaveLength(3);
    expect(toolOutput(result.timeline, 'call_1')).toEqual({ type: 'text', value: 'Child answer.' });
  });

  it("the result is the child's <Output> object", async () => {
    const child = scriptedModel([
      { toolCalls: [{ toolName: 'final_answer', input: { verdict: 'approve' } }] },
    ]);
    const parent = scriptedModel([delegate('review'), 'Done.']);
    const result = await run(<Parent kind="output" childModel={child} />, { model: parent });
    expect(toolOutput(result.timeline, 'call_1')).toEqual({
      type: 'json',
      value: { verdict: 'approve' },
    });
    expect(result.subAgents?.call_1?.output).toEqual({ verdict: 'approve' });
  });

  const failures: Array<[ChildKind, string, string[], number | undefined]> = [
    ['gate', 'blocked', ['I am done.'], undefined],
    ['loop', 'max-ticks', [{ toolCalls: [{ toolName: 'run_tests', input: {} }] } as never], 2],
    [
      'stop',
      'stopped',
      [{ toolCalls: [{ toolName: 'run_tests', input: {} }] } as never],
      undefined,
    ],
    ['throws', 'error', ['never called'], undefined],
  ];
  it.each(failures)(
    'a child that ends %s… gives the parent a tool error naming it, the status and the reason',
    async (kind, status, script, maxTicks) => {
      const child = scriptedModel(script as never, { whenExhausted: 'repeat-last' });
      const parent = scriptedModel([delegate('review'), 'I could not get a review.']);
      const result = await run(
        <Parent kind={kind} childModel={child} {...(maxTicks !== undefined ? { maxTicks } : {})} />,
        { model: parent },
      );
      expect(result.status).toBe('completed');
      const output = toolOutput(result.timeline, 'call_1') as { type: string; value: string };
      expect(output.type).toBe('error-text');
      expect(output.value).toContain(`Sub-agent "reviewer" ended ${status}`);
      expect(result.subAgents?.call_1?.status).toBe(status);
      if (kind === 'gate') expect(output.value).toContain('Run the tests with run_tests');
      if (kind === 'throws') expect(output.value).toContain('the child tree failed to render');
      if (kind === 'stop') expect(output.value).toContain('tool-call budget is exhausted');
    },
  );

  it('an abort of the parent reaches the child, and the run resumes the child where it was', async () => {
    const controller = new AbortController();
    const child = scriptedModel([
      { toolCalls: [{ toolName: 'run_tests', input: {} }] },
      () => {
        controller.abort(new Error('stop now'));
        return { text: 'never seen', delayMs: 1_000 };
      },
      'Resumed child answer.',
    ]);
    const parent = scriptedModel([delegate('review'), 'Parent done.']);
    const session = createSession(<Parent kind="plain" childModel={child} />, { model: parent });
    const aborted = await session.run({ signal: controller.signal });
    expect(aborted.status).toBe('aborted');
    // The parent's state holds the child at its first finished tick.
    const inflight = session.state.inflight;
    expect(inflight?.tick).toBe(1);
    const progress = inflight?.progress.call_1 as { state: { tick: number } };
    expect(progress.state.tick).toBe(1);

    const resumed = await session.run();
    expect(resumed.status).toBe('completed');
    // The parent's model was not asked again for tick 1; the child went on from its tick 2.
    expect(parent.calls).toHaveLength(2);
    expect(child.calls).toHaveLength(3);
    expect(resumed.subAgents?.call_1?.totalTicks).toBe(2);
    expect(toolOutput(resumed.timeline, 'call_1')).toEqual({
      type: 'text',
      value: 'Resumed child answer.',
    });
    expect(session.state.inflight).toBeUndefined();
  });
});

describe('parallel sub-agent calls', () => {
  const slowChild = () =>
    scriptedModel(
      [
        (call) => {
          const text = JSON.stringify(call.options.prompt);
          return {
            text: `answer for ${/task-(\d)/.exec(text)?.[0]}`,
            delayMs: text.includes('task-1') ? 60 : 5,
          };
        },
      ],
      { whenExhausted: 'repeat-last' },
    );

  it('run concurrently; other tools one at a time; results in call order', async () => {
    const parent = scriptedModel([
      {
        toolCalls: [
          { toolName: 'reviewer', input: { task: 'task-1' }, toolCallId: 'a' },
          { toolName: 'note', input: { text: 'x' }, toolCallId: 'b' },
          { toolName: 'reviewer', input: { task: 'task-2' }, toolCallId: 'c' },
        ],
      },
      'Done.',
    ]);
    const events: AgateEvent[] = [];
    const result = await run(<Parent kind="plain" childModel={slowChild()} extra />, {
      model: parent,
      onEvent: (e) => events.push(e),
    });
    expect(result.status).toBe('completed');
    const order = events
      .filter((e) => (e.type === 'run:start' || e.type === 'run:end') && (e.path?.length ?? 0) > 0)
      .map((e) => `${e.type} ${e.path?.[0]}`);
    // Both children started before the slow one (a) ended: they ran at once.
    expect(order.indexOf('run:start reviewer#c')).toBeLessThan(order.indexOf('run:end reviewer#a'));
    expect(order.indexOf('run:end reviewer#c')).toBeLessThan(order.indexOf('run:end reviewer#a'));
    const results = events.filter((e) => e.type === 'tool:result' && e.path?.length === 0);
    expect(results.map((e) => e.type === 'tool:result' && e.toolCallId)).toEqual(['a', 'b', 'c']);
    const tool = result.timeline.find((m) => m.role === 'tool');
    expect(
      ((tool?.content ?? []) as Array<{ toolCallId: string }>).map((p) => p.toolCallId),
    ).toEqual(['a', 'b', 'c']);
    expect(toolOutput(result.timeline, 'a')).toEqual({ type: 'text', value: 'answer for task-1' });
    expect(toolOutput(result.timeline, 'c')).toEqual({ type: 'text', value: 'answer for task-2' });
  });

  it('maxConcurrency bounds how many run at once', async () => {
    const parent = scriptedModel([
      {
        toolCalls: [
          { toolName: 'reviewer', input: { task: 'task-1' }, toolCallId: 'a' },
          { toolName: 'reviewer', input: { task: 'task-2' }, toolCallId: 'c' },
        ],
      },
      'Done.',
    ]);
    const events: AgateEvent[] = [];
    await run(<Parent kind="plain" childModel={slowChild()} maxConcurrency={1} />, {
      model: parent,
      onEvent: (e) => events.push(e),
    });
    const order = events
      .filter((e) => (e.type === 'run:start' || e.type === 'run:end') && (e.path?.length ?? 0) > 0)
      .map((e) => `${e.type} ${e.path?.[0]}`);
    expect(order).toEqual([
      'run:start reviewer#a',
      'run:end reviewer#a',
      'run:start reviewer#c',
      'run:end reviewer#c',
    ]);
  });
});

describe('a checkpoint inside a sub-agent', () => {
  const submit = {
    toolCalls: [
      { toolName: 'submit_checkpoint', input: { id: 'T-1', summary: 'Reviewed math.js' } },
    ],
  };

  it('makes the parent end awaiting-approval naming the path; session.approve takes the path', async () => {
    const child = scriptedModel([submit, 'Approved review: fine.']);
    const parent = scriptedModel([delegate('review', 'call_3'), 'Parent done.']);
    const store = createMemoryStore();
    const session = createSession(<Parent kind="checkpoint" childModel={child} />, {
      model: parent,
      store,
    });
    const waiting = await session.run();
    expect(waiting.status).toBe('awaiting-approval');
    expect(waiting.reason).toContain('reviewer#call_3 › T-1');
    expect(waiting.subAgents?.call_3?.status).toBe('awaiting-approval');
    // Saved, with the child inside the parent's state.
    expect((await store.load(session.id))?.state).toMatchObject({ inflight: { tick: 1 } });

    const events: AgateEvent[] = [];
    session.subscribe((e) => events.push(e));
    session.approve('reviewer#call_3 › T-1', { by: 'alice' });
    expect(events.find((e) => e.type === 'checkpoint:approved')?.path).toEqual(['reviewer#call_3']);
    const done = await session.run();
    expect(done.status).toBe('completed');
    expect(toolOutput(done.timeline, 'call_3')).toEqual({
      type: 'text',
      value: 'Approved review: fine.',
    });
    expect(parent.calls).toHaveLength(2);
  });

  it('approveCheckpoint(store, parentId, path) decides it in a stored session', async () => {
    const child = scriptedModel([submit, 'Approved review: fine.']);
    const parent = scriptedModel([delegate('review', 'call_3'), 'Parent done.']);
    const store = createMemoryStore();
    const first = createSession(<Parent kind="checkpoint" childModel={child} />, {
      model: parent,
      store,
      id: 'p1',
    });
    expect((await first.run()).status).toBe('awaiting-approval');
    first.dispose();
    await expect(
      approveCheckpoint(store, 'p1', 'reviewer#nope › T-1', { by: 'bob' }),
    ).rejects.toThrow('Running there: reviewer#call_3');
    const entry = await approveCheckpoint(store, 'p1', 'reviewer#call_3 › T-1', { by: 'bob' });
    expect(entry.kind).toBe('approved');
    const snapshot = await store.load('p1');
    const again = createSession(<Parent kind="checkpoint" childModel={child} />, {
      model: parent,
      store,
      ...(snapshot !== undefined ? { snapshot } : {}),
    });
    const done = await again.run();
    expect(done.status).toBe('completed');
    expect(done.subAgents?.call_3?.checkpoints).toEqual({ 'T-1': 'approved' });
  });
});

describe('renderContext for a sub-agent', () => {
  it("renders the child's context for a call's input", async () => {
    const { formatContext, renderContext } = await import('@agate/testing');
    const context = renderContext(<Parent kind="gate" />, undefined, {
      subAgent: { name: 'reviewer', input: { task: 'review math.js' } },
    });
    expect(context.tools.map((t) => t.name)).toEqual(['run_tests']);
    expect(formatContext(context)).toMatchSnapshot();
    expect(() =>
      renderContext(<Parent kind="gate" />, undefined, { subAgent: { name: 'nobody', input: {} } }),
    ).toThrow('No <SubAgent name="nobody"> is rendered in this tree; rendered: "reviewer".');
    expect(() =>
      renderContext(<Parent kind="gate" />, undefined, {
        subAgent: { name: 'reviewer', input: {} },
      }),
    ).toThrow('does not match its schema');
  });
});

describe("the parent's budgets", () => {
  it("count the child's tokens and tool calls: a ContinueGate token budget stops the parent", async () => {
    const { ContinueGate } = await import('../../index.js');
    const child = scriptedModel([
      {
        toolCalls: [{ toolName: 'run_tests', input: {} }],
        usage: { inputTokens: 900, outputTokens: 50 },
      },
      { text: 'Done reviewing.', usage: { inputTokens: 900, outputTokens: 50 } },
    ]);
    const parent = scriptedModel([
      { ...delegate('review'), usage: { inputTokens: 10, outputTokens: 1 } },
      { ...delegate('again', 'call_2'), usage: { inputTokens: 10, outputTokens: 1 } },
    ]);
    const result = await run(
      <>
        <Parent kind="plain" childModel={child} />
        <ContinueGate budget={{ tokens: 1_000 }} />
      </>,
      { model: parent },
    );
    // 11 tokens of the parent's own, 1,900 of the child's: over budget before a second call.
    expect(result.status).toBe('stopped');
    expect(result.reason).toContain('token budget is exhausted');
    expect(result.usage.totalTokens).toBe(1_911);
    expect(parent.calls).toHaveLength(1);
  });
});

describe('a sub-agent call over toolTimeoutMs', () => {
  it('is a tool error; the child is told to stop and leaves nothing in flight', async () => {
    const child = scriptedModel([{ text: 'too slow', delayMs: 2_000 }]);
    const parent = scriptedModel([delegate('review'), 'Gave up on the review.']);
    const session = createSession(<Parent kind="plain" childModel={child} />, {
      model: parent,
      toolTimeoutMs: 50,
    });
    const result = await session.run();
    expect(result.status).toBe('completed');
    expect(JSON.stringify(toolOutput(result.timeline, 'call_1'))).toContain(
      'timed out after 50 ms',
    );
    // The child's run ends aborted on its own; nothing it saves on the way out sticks.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(session.state.inflight).toBeUndefined();
  });
});
