/**
 * A guard family written the way the built-in ones are, from `@agate/core` alone, and given to a
 * session with `guardFamilies`: it is asked at the same points, in the documented order, keeps
 * its state under `state.guards`, and a call it refuses is never put up for a person's approval.
 */
import { scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  countSchema,
  type FamilySlice,
  type GuardFamily,
  type GuardFamilyFactory,
  type GuardHost,
  type ToolCallVerdict,
} from '../entries/guards.js';
import {
  createMemoryStore,
  createSession,
  GuardStateError,
  InvalidOptionError,
  System,
  Timeline,
  Tool,
  User,
} from '../index.js';

/** At most `limit` calls of `tool` per session; its count lives at `state.guards.quota`. */
function quota(tool: string, limit: number): GuardFamilyFactory {
  return (host): GuardFamily => {
    const used = () => (host.state().guards.quota as { used: number } | undefined)?.used ?? 0;
    return {
      name: 'quota',
      render: () => ({
        ephemeral: [{ text: `${tool}: ${limit - used()} calls left.`, source: 'quota' }],
      }),
      beforeToolCall(_tick, call): ToolCallVerdict {
        if (call.toolName !== tool || used() < limit) return { kind: 'allow' };
        return {
          kind: 'refuse',
          message: `No ${tool} calls left (${limit} per session).`,
          by: 'quota',
        };
      },
      afterToolCall(_tick, outcome) {
        if (outcome.call.toolName !== tool || !outcome.executed) return;
        host.update((draft) => {
          draft.guards.quota = { used: used() + 1 };
        });
      },
      exitAttempt: () =>
        used() === 0
          ? {
              kind: 'refuse',
              names: ['quota'],
              reasons: [`call ${tool} once`],
              notice: `Call ${tool} at least once before you finish.`,
            }
          : { kind: 'allow' },
    };
  };
}

const ran: string[] = [];
function Agent() {
  return (
    <>
      <System>Deploy.</System>
      <User>Ship it.</User>
      <Timeline />
      <Tool
        name="deploy"
        description="Deploy the build."
        input={z.object({ env: z.string() })}
        needsApproval
        execute={({ env }) => {
          ran.push(env);
          return `deployed to ${env}`;
        }}
      />
      <Tool
        name="check"
        description="Check the build."
        input={z.object({})}
        execute={() => {
          ran.push('check');
          return 'ok';
        }}
      />
    </>
  );
}

const call = (toolName: string, input: object, id: string) => ({
  toolCalls: [{ toolName, input, toolCallId: id }],
});

describe('SessionOptions.guardFamilies', () => {
  it('a family of your own: asked around calls and at exit, its state in state.guards, in context', async () => {
    ran.length = 0;
    const model = scriptedModel([
      'Done.',
      call('check', {}, 'c1'),
      call('check', {}, 'c2'),
      'Done.',
    ]);
    const session = createSession(<Agent />, {
      model,
      guardFamilies: [quota('check', 1)],
      store: createMemoryStore(),
    });
    expect(session.render().ephemeral.map((b) => b.text)).toContain('check: 1 calls left.');
    const result = await session.run();
    expect(result.status).toBe('completed');
    // Refused to finish before any check; one check ran, the second was refused.
    expect(ran).toEqual(['check']);
    expect(JSON.stringify(model.calls[1]?.prompt)).toContain('Call check at least once');
    expect(result.events.some((e) => e.type === 'tool:refused' && e.by === 'quota')).toBe(true);
    expect(JSON.stringify(model.calls[3]?.prompt)).toContain('No check calls left');
    expect(session.state.guards.quota).toEqual({ used: 1 });
    expect(session.snapshot().state.guards.quota).toEqual({ used: 1 });
  });

  it('comes before approvals: a call it refuses is refused, not put up for a person', async () => {
    ran.length = 0;
    const model = scriptedModel([call('deploy', { env: 'prod' }, 'd1'), 'Stopped.']);
    const session = createSession(<Agent />, {
      model,
      guardFamilies: [quota('deploy', 0)],
      store: createMemoryStore(),
    });
    const result = await session.run();
    expect(result.pendingApprovals).toEqual([]);
    expect(result.status).not.toBe('awaiting-approval');
    expect(ran).toEqual([]);
  });

  it('declares its slice as the built-in families do: started, kept, checked on restore, its own', async () => {
    // A family's slice type is declared by augmenting GuardStates; the test stays local instead.
    const sliceNamed = (name: string) =>
      ({
        name,
        initialState: () => ({ ticks: 0 }),
        stateSchema: z.object({ ticks: countSchema }),
      }) as unknown as FamilySlice;
    const ticksOf = (host: GuardHost) => (host.state().guards.counted as { ticks: number }).ticks;
    const counted =
      (name = 'counted'): GuardFamilyFactory =>
      (host): GuardFamily => ({
        name,
        slice: sliceNamed(name),
        tickEnd() {
          host.update((draft) => {
            draft.guards.counted = { ticks: ticksOf(host) + 1 };
          });
        },
      });
    const session = createSession(<Agent />, {
      model: scriptedModel([call('check', {}, 'c1'), 'Done.']),
      guardFamilies: [counted()],
      store: createMemoryStore(),
    });
    expect(session.state.guards.counted).toEqual({ ticks: 0 });
    await session.run();
    expect(session.state.guards.counted).toEqual({ ticks: 2 });
    const snapshot = session.snapshot();
    const model = scriptedModel([]);
    const again = createSession(<Agent />, { model, snapshot, guardFamilies: [counted()] });
    expect(again.state.guards.counted).toEqual({ ticks: 2 });
    // A slice edited in the snapshot is refused before the session exists, naming the path.
    const edited = structuredClone(snapshot);
    edited.state.guards.counted = { ticks: -3 };
    const restore = () =>
      createSession(<Agent />, { model, snapshot: edited, guardFamilies: [counted()] });
    expect(restore).toThrow(GuardStateError);
    expect(restore).toThrow('state.guards.counted.ticks');
    // A built-in family's slice, or one another family declares, is not to be had.
    expect(() => createSession(<Agent />, { model, guardFamilies: [counted('todos')] })).toThrow(
      "is a built-in family's",
    );
    expect(() =>
      createSession(<Agent />, { model, guardFamilies: [counted(), counted()] }),
    ).toThrow('family "counted" declares too');
  });

  it('a factory that is not one is refused where it is given', () => {
    const model = scriptedModel([]);
    expect(() =>
      createSession(<Agent />, {
        model,
        guardFamilies: ['quota' as unknown as GuardFamilyFactory],
      }),
    ).toThrow(InvalidOptionError);
    expect(() =>
      createSession(<Agent />, { model, guardFamilies: [() => ({}) as GuardFamily] }),
    ).toThrow('guardFamilies[0] must return a family');
  });
});
