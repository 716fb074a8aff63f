import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ScriptedTurn, scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { materializeTicks } from '../entries/stores.js';
import {
  createFileStore,
  createMemoryStore,
  createSession,
  gate,
  InvalidOptionError,
  type SessionOptions,
  System,
  Timeline,
  Tool,
  User,
  useGate,
} from '../index.js';

const verification = gate({
  description: 'Verify your changes before completing',
  instructions: 'You changed files: run the tests before you finish.',
  activateWhen: (tick) => tick.toolCalls.some((c) => c.toolName === 'write_file'),
  clearWhen: (tick) => tick.toolCalls.some((c) => c.toolName === 'run_tests'),
});

function Coder() {
  const v = useGate('verification', verification);
  return (
    <>
      <System>You fix bugs.</System>
      <User>Fix add().</User>
      <Timeline />
      <Tool
        name="write_file"
        description="Write a file."
        input={z.object({ path: z.string(), content: z.string().optional() })}
        execute={({ path }) => `wrote ${path}`}
      />
      <Tool
        name="run_tests"
        description="Run the tests."
        input={z.object({})}
        execute={() => ({ exitCode: 0 })}
      />
      {v.element}
    </>
  );
}

const turns: ScriptedTurn[] = [
  { toolCalls: [{ toolName: 'write_file', input: { path: 'a.js' }, toolCallId: 'w1' }] },
  'All done.',
  { toolCalls: [{ toolName: 'run_tests', toolCallId: 't1' }] },
  'Fixed and verified.',
];

const start = (options: Partial<SessionOptions> = {}, script = turns) =>
  createSession(<Coder />, { model: scriptedModel(script), tickLog: true, ...options });

describe('the tick log', () => {
  it('records each tick: the request as a change, the reply, calls, gates and the refusal', async () => {
    const session = start();
    await session.run();
    const ticks = session.ticks();
    expect(ticks.map((t) => t.tick)).toEqual([1, 2, 3, 4]);
    const [first, second, third] = ticks;
    expect(first?.request).toMatchObject({ system: 'You fix bugs.', keep: 0 });
    expect(first?.request?.tools?.map((t) => t.name)).toEqual(['write_file', 'run_tests']);
    expect(first?.calls).toEqual([
      {
        toolCallId: 'w1',
        toolName: 'write_file',
        input: { path: 'a.js' },
        output: 'wrote a.js',
        isError: false,
      },
    ]);
    expect(first?.gates).toEqual({ verification: 'active' });
    // Tick 2 shares tick 1's user message and adds the call and its result; system unchanged.
    expect(second?.request?.system).toBeUndefined();
    expect(second?.request?.keep).toBe(1);
    expect(second?.request?.added.map((m) => m.role)).toEqual(['assistant', 'tool']);
    expect(second?.request?.ephemeral.join('\n')).toContain('run the tests before you finish');
    expect(second?.reply.text).toBe('All done.');
    expect(second?.decisions.map((d) => d.type)).toContain('exit:blocked');
    expect(third?.gates).toEqual({ verification: 'inactive' });
    expect(ticks.every((t) => t.durationMs >= 0 && !Number.isNaN(Date.parse(t.startedAt)))).toBe(
      true,
    );
  });

  it('rebuilds every request whole: what the model was sent, tick by tick', async () => {
    const model = scriptedModel(turns);
    const session = createSession(<Coder />, { model, tickLog: true });
    await session.run();
    const whole = materializeTicks(session.ticks());
    // The model's prompt: the system message, then the request messages (the ephemeral block last).
    whole.forEach((tick, i) => {
      const prompt = model.calls[i]?.prompt ?? [];
      expect(tick.messages.length).toBeLessThan(prompt.length);
      expect(tick.system).toBe('You fix bugs.');
    });
    expect(whole.map((t) => t.messages.length)).toEqual([1, 3, 4, 6]);
  });

  it('stays bounded: past maxTicks the oldest are dropped and the first kept request is whole', async () => {
    const loop: ScriptedTurn[] = [{ toolCalls: [{ toolName: 'run_tests' }] }];
    const full = createSession(<Coder />, {
      model: scriptedModel(loop, { whenExhausted: 'repeat-last' }),
      tickLog: true,
      maxTicks: 12,
    });
    const bounded = createSession(<Coder />, {
      model: scriptedModel(loop, { whenExhausted: 'repeat-last' }),
      tickLog: { maxTicks: 4 },
      maxTicks: 12,
    });
    await full.run();
    await bounded.run();
    const kept = bounded.ticks();
    expect(kept.length).toBeGreaterThanOrEqual(4);
    expect(kept.length).toBeLessThanOrEqual(5);
    expect(kept[0]?.request?.keep).toBe(0);
    expect(kept[0]?.request?.system).toBe('You fix bugs.');
    const all = materializeTicks(full.ticks()).slice(-kept.length);
    expect(materializeTicks(kept).map((t) => t.messages)).toEqual(all.map((t) => t.messages));
  });

  it('cuts long fields to maxFieldChars', async () => {
    const long = 'x'.repeat(500);
    const session = start({ tickLog: { maxFieldChars: 100 } }, [
      { toolCalls: [{ toolName: 'write_file', input: { path: 'a.js', content: long } }] },
      { toolCalls: [{ toolName: 'run_tests' }] },
      long,
    ]);
    await session.run();
    const [first, , last] = session.ticks();
    expect(JSON.stringify(first?.calls[0]?.input)).toContain(
      '[400 more characters not kept in the tick log]',
    );
    expect(last?.reply.text.length).toBeLessThan(200);
  });

  it('is kept with the session in the store (memory and files), replaced when trimmed', async () => {
    const memory = createMemoryStore();
    const session = start({ store: memory, id: 'logged' });
    await session.run();
    expect(await memory.loadTicks?.('logged')).toEqual(session.ticks());

    const dir = await mkdtemp(join(tmpdir(), 'agate-ticks-'));
    try {
      const files = createFileStore(dir);
      const bounded = createSession(<Coder />, {
        model: scriptedModel([{ toolCalls: [{ toolName: 'run_tests' }] }], {
          whenExhausted: 'repeat-last',
        }),
        tickLog: { maxTicks: 2 },
        maxTicks: 7,
        store: files,
        id: 'on-disk',
      });
      await bounded.run();
      const stored = (await files.loadTicks?.('on-disk')) ?? [];
      expect(stored).toEqual(bounded.ticks());
      expect(stored[0]?.request?.keep).toBe(0);
      expect(await files.list()).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is off by default and checks its options', () => {
    const session = createSession(<Coder />, { model: scriptedModel([]) });
    expect(session.ticks()).toEqual([]);
    expect(() => start({ tickLog: { maxTicks: 0 } })).toThrow(InvalidOptionError);
    expect(() => start({ tickLog: { maxFieldChars: 5 } })).toThrow(/tickLog.maxFieldChars/);
    expect(() => start({ tickLog: 'yes' as never })).toThrow(/tickLog must be/);
  });
});

describe('the tick log of a trimmed timeline', () => {
  it('stores a slid request as dropped + kept messages, not again whole', async () => {
    const model = scriptedModel([{ toolCalls: [{ toolName: 'run_tests' }] }], {
      whenExhausted: 'repeat-last',
    });
    const session = createSession(<Coder />, {
      model,
      tickLog: true,
      maxTicks: 12,
      maxTimelineMessages: 6,
    });
    await session.run();
    const ticks = session.ticks();
    const late = ticks.at(-1)?.request;
    expect(late?.drop).toBeGreaterThan(0);
    expect(late?.added.length).toBeLessThanOrEqual(2);
    // Rebuilt whole, each request is what the model was sent (the system message comes first).
    const whole = materializeTicks(ticks);
    whole.forEach((tick, i) => {
      const prompt = model.calls[i]?.prompt ?? [];
      const sent = prompt.filter((m) => m.role !== 'system').length;
      expect(tick.messages.length).toBeLessThanOrEqual(sent);
      expect(tick.messages.length).toBeGreaterThanOrEqual(sent - 1);
    });
  });
});
