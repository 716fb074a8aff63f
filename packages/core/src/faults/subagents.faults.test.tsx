/**
 * Faults around sub-agents and `<Output>`: a model that calls them wrongly, children that fail
 * or never finish, aborts while children run, hand-edited in-flight state, approvals that name
 * no running child.
 */
import { scriptedModel } from '@agate/testing';
import { produce } from 'immer';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Parent } from '../families/sub-agents/__fixtures__/agents.js';
import {
  approveCheckpoint,
  createMemoryStore,
  createSession,
  Output,
  run,
  type SessionState,
  SnapshotError,
  System,
  Timeline,
  Tool,
  User,
} from '../index.js';
import { createSnapshot } from '../persistence/snapshot.js';

const delegate = (input: unknown, toolCallId = 'call_1') => ({
  toolCalls: [{ toolName: 'reviewer', input, toolCallId }],
});
const outputOf = (timeline: unknown, id: string) =>
  JSON.stringify(
    (timeline as Array<{ role: string; content: Array<{ toolCallId?: string; output?: unknown }> }>)
      .filter((m) => m.role === 'tool')
      .flatMap((m) => m.content)
      .find((p) => p.toolCallId === id)?.output,
  );

describe('sub-agent and <Output> faults', () => {
  it('a sub-agent call whose arguments fail its schema', async () => {
    const child = scriptedModel([]);
    const parent = scriptedModel([delegate({ task: 42 }), 'Gave up.']);
    const result = await run(<Parent kind="plain" childModel={child} />, { model: parent });
    expect(result.status).toBe('completed');
    expect(outputOf(result.timeline, 'call_1')).toContain(
      'Invalid arguments for tool \\"reviewer\\"',
    );
    // No child was started for it.
    expect(child.calls).toHaveLength(0);
    expect(result.subAgents).toBeUndefined();
  });

  it('a sub-agent whose tree throws while it renders', async () => {
    const parent = scriptedModel([delegate({ task: 'x' }), 'The reviewer failed.']);
    const result = await run(<Parent kind="throws" childModel={scriptedModel([])} />, {
      model: parent,
    });
    expect(result.status).toBe('completed');
    expect(outputOf(result.timeline, 'call_1')).toContain('Sub-agent \\"reviewer\\" ended error');
  });

  it('a sub-agent that never finishes', async () => {
    const child = scriptedModel([{ toolCalls: [{ toolName: 'run_tests', input: {} }] }], {
      whenExhausted: 'repeat-last',
    });
    const parent = scriptedModel([delegate({ task: 'x' }), 'The reviewer ran out of ticks.']);
    const result = await run(<Parent kind="loop" childModel={child} maxTicks={3} />, {
      model: parent,
    });
    expect(result.status).toBe('completed');
    expect(child.calls).toHaveLength(3);
    expect(outputOf(result.timeline, 'call_1')).toContain('ended max-ticks');
  });

  it('a model that calls the same sub-agent many times in one response', async () => {
    let running = 0;
    let most = 0;
    const child = scriptedModel(
      [
        () => {
          running++;
          most = Math.max(most, running);
          return { text: 'ok', delayMs: 5 };
        },
      ],
      { whenExhausted: 'repeat-last' },
    );
    const counted = {
      ...child,
      doGenerate: async (o: never) => {
        try {
          return await child.doGenerate(o);
        } finally {
          running--;
        }
      },
    };
    const calls = Array.from({ length: 12 }, (_, i) => ({
      toolName: 'reviewer',
      input: { task: `t${i}` },
      toolCallId: `c${i}`,
    }));
    const parent = scriptedModel([{ toolCalls: calls }, 'Done.']);
    const result = await run(
      <Parent
        kind="plain"
        childModel={Object.setPrototypeOf(counted, Object.getPrototypeOf(child))}
        maxConcurrency={3}
      />,
      { model: parent, streaming: false },
    );
    expect(result.status).toBe('completed');
    expect(Object.keys(result.subAgents ?? {})).toHaveLength(12);
    // Bounded by maxConcurrency: never more than 3 children at once.
    expect(most).toBeLessThanOrEqual(3);
    expect(most).toBeGreaterThan(1);
  });

  it('an abort while parallel sub-agents run', async () => {
    const controller = new AbortController();
    let started = 0;
    const child = scriptedModel(
      [
        () => {
          started++;
          if (started === 2) setTimeout(() => controller.abort(new Error('stop')), 5);
          return { text: 'late', delayMs: 2_000 };
        },
      ],
      { whenExhausted: 'repeat-last' },
    );
    const parent = scriptedModel([
      {
        toolCalls: [
          delegate({ task: 'a' }, 'a').toolCalls[0]!,
          delegate({ task: 'b' }, 'b').toolCalls[0]!,
        ],
      },
      'Done.',
    ]);
    const session = createSession(<Parent kind="plain" childModel={child} />, { model: parent });
    const aborted = await session.run({ signal: controller.signal });
    expect(aborted.status).toBe('aborted');
    expect(Object.keys(session.state.inflight?.progress ?? {}).sort()).toEqual(['a', 'b']);
    expect(session.state.tick).toBe(0);
    const fast = scriptedModel(['answer'], { whenExhausted: 'repeat-last' });
    session.dispose();
    const again = createSession(<Parent kind="plain" childModel={fast} />, {
      model: parent,
      snapshot: session.snapshot(),
    });
    const done = await again.run();
    expect(done.status).toBe('completed');
    expect(parent.calls).toHaveLength(2);
    expect(outputOf(done.timeline, 'a')).toContain('answer');
    expect(outputOf(done.timeline, 'b')).toContain('answer');
  });

  it('a hand-edited snapshot whose in-flight sub-agent state is not a session state', async () => {
    const controller = new AbortController();
    const child = scriptedModel([
      { toolCalls: [{ toolName: 'run_tests', input: {} }] },
      () => {
        controller.abort();
        return { text: 'late', delayMs: 1_000 };
      },
    ]);
    const parent = scriptedModel([delegate({ task: 'x' }), 'Recovered.']);
    const session = createSession(<Parent kind="plain" childModel={child} />, { model: parent });
    expect((await session.run({ signal: controller.signal })).status).toBe('aborted');
    const edited = produce(session.state, (draft: SessionState) => {
      const progress = draft.inflight?.progress.call_1 as { state: { timeline: unknown } };
      progress.state.timeline = [42, null];
    });
    const again = createSession(<Parent kind="plain" childModel={scriptedModel([])} />, {
      model: parent,
      snapshot: createSnapshot(session.id, edited),
    });
    const result = await again.run();
    // The damaged child is refused (named), the parent's model reads that as the call's error.
    expect(result.status).toBe('completed');
    expect(outputOf(result.timeline, 'call_1')).toContain('state.timeline');
    // A damaged in-flight record of the parent itself is refused when the snapshot loads.
    const broken = produce(session.state, (draft: SessionState) => {
      (draft.inflight as unknown as { response: unknown }).response = { toolCalls: 'x' };
    });
    expect(() =>
      createSession(<Parent kind="plain" />, {
        model: parent,
        snapshot: createSnapshot(session.id, broken),
      }),
    ).toThrow(SnapshotError);
  });

  it('an approval naming a path that leads to no running sub-agent', async () => {
    const store = createMemoryStore();
    const child = scriptedModel([
      { toolCalls: [{ toolName: 'submit_checkpoint', input: { id: 'T-1', summary: 'done' } }] },
    ]);
    const parent = scriptedModel([delegate({ task: 'x' }, 'call_3')]);
    const session = createSession(<Parent kind="checkpoint" childModel={child} />, {
      model: parent,
      store,
      id: 'fault-path',
    });
    expect((await session.run()).status).toBe('awaiting-approval');
    const before = JSON.stringify((await store.load('fault-path'))?.state);
    for (const path of ['reviewer#call_9 › T-1', 'docs#call_3 › T-1', 'reviewer#call_3 › T-9']) {
      await expect(approveCheckpoint(store, 'fault-path', path, { by: 'x' })).rejects.toThrow(
        /no checkpoint|No running sub-agent|Running there/,
      );
      expect(() => session.approve(path, { by: 'x' })).toThrow();
    }
    expect(JSON.stringify((await store.load('fault-path'))?.state)).toBe(before);
  });

  it('a final_answer that never matches the <Output> schema', async () => {
    const model = scriptedModel(
      [{ toolCalls: [{ toolName: 'final_answer', input: { verdict: 7 } }] }, '{"verdict":"ok"}'],
      { whenExhausted: 'repeat-last' },
    );
    const result = await run(
      <>
        <System>Answer.</System>
        <User>Verdict?</User>
        <Timeline />
        <Tool name="noop" input={z.object({})} execute={() => 'ok'} />
        <Output schema={z.object({ verdict: z.string() })} maxBlocks={2} />
      </>,
      { model, maxTicks: 10 },
    );
    // Refused with the zod issues, then plain text refused too: bounded, never completed.
    expect(result.status).toBe('blocked');
    expect(result.output).toBeUndefined();
    expect(JSON.stringify(model.calls[1]?.prompt)).toContain('Invalid arguments for tool');
  });
});
