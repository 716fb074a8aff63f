import { scaledLimit, scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSession, InvalidOptionError, Tool } from '../index.js';
import { call, FaultAgent, sleep, step, toolOutputs, watch } from './harness.js';

const empty = z.object({});

describe('tool faults', () => {
  it('a tool that throws', async () => {
    const explode = (
      <Tool
        name="explode"
        input={empty}
        execute={() => {
          throw new Error('EACCES: permission denied, open /etc/shadow');
        }}
      />
    );
    const model = scriptedModel([call({}, 'explode'), 'I could not read it.']);
    const session = createSession(<FaultAgent extra={explode} />, { model });
    const result = await session.run();
    expect(result.status).toBe('completed');
    expect(toolOutputs(session)).toEqual([
      'Tool "explode" failed: EACCES: permission denied, open /etc/shadow',
    ]);
  });

  it('a tool that hangs past its timeoutMs', async () => {
    let signalled: unknown;
    const hang = (
      <Tool
        name="hang"
        input={empty}
        timeoutMs={30}
        execute={(_input, { abortSignal }) => {
          abortSignal.addEventListener('abort', () => (signalled = abortSignal.reason));
          return new Promise(() => {}); // a stuck command that ignores its signal
        }}
      />
    );
    const model = scriptedModel([call({}, 'hang'), step(1), 'Done.']);
    const session = createSession(<FaultAgent extra={hang} />, { model });
    const w = watch(session);
    const result = await session.run();
    expect(result.status).toBe('completed');
    const timedOut =
      'Tool "hang" timed out after 30 ms and was told to stop (its abortSignal fired). ' +
      'Try a smaller piece of work, or another way.';
    expect(toolOutputs(session)).toEqual([timedOut, 'did step 1']);
    expect(w.ofType('tool:result')[0]).toMatchObject({ isError: true, output: timedOut });
    expect(signalled).toMatchObject({ name: 'ToolTimeoutError' });
  });

  it('a tool that hangs past the session toolTimeoutMs', async () => {
    const slow = (
      <Tool
        name="slow"
        input={empty}
        execute={(_input, { abortSignal }) =>
          new Promise((resolve, reject) => {
            const timer = setTimeout(() => resolve('finally'), 5_000);
            abortSignal.addEventListener('abort', () => {
              clearTimeout(timer);
              reject(new Error('cancelled by signal'));
            });
          })
        }
      />
    );
    const fast = <Tool name="fast" input={empty} timeoutMs={1_000} execute={() => 'quick'} />;
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'slow' }, { toolName: 'fast' }] },
      'Done.',
    ]);
    const session = createSession(
      <FaultAgent
        extra={
          <>
            {slow}
            {fast}
          </>
        }
      />,
      { model, toolTimeoutMs: 25 },
    );
    const result = await session.run();
    expect(result.status).toBe('completed');
    expect(toolOutputs(session)).toEqual([
      expect.stringMatching(/^Tool "slow" timed out after 25 ms/),
      'quick',
    ]);
    expect(() => createSession(<FaultAgent />, { model, toolTimeoutMs: -1 })).toThrow(
      InvalidOptionError,
    );
  });

  it('a tool that hangs, ignoring the abort signal, when the run is aborted', async () => {
    const controller = new AbortController();
    let finish: ((value: string) => void) | undefined;
    const stuck = (
      <Tool
        name="stuck"
        input={empty}
        execute={() => {
          setTimeout(() => controller.abort(), 20);
          return new Promise<string>((resolve) => (finish = resolve));
        }}
      />
    );
    const model = scriptedModel([step(1), call({}, 'stuck'), 'Done.']);
    const session = createSession(<FaultAgent extra={stuck} />, { model });
    const w = watch(session);

    const started = performance.now();
    const aborted = await session.run({ signal: controller.signal });
    expect(performance.now() - started).toBeLessThan(scaledLimit(1_000));
    expect(aborted.status).toBe('aborted');
    w.expectStateAfterTick(1);

    // The tool's late result is dropped: it never reaches the state or the events.
    finish?.('late result');
    await sleep(5);
    w.expectStateAfterTick(1);
    expect(w.ofType('tool:result').map((e) => e.output)).toEqual(['did step 1']);

    // Run again: tick 2 is asked of the model afresh.
    expect((await session.run()).status).toBe('completed');
    expect(session.state.tick).toBe(2);
  });

  it('a tool that returns an unserializable value', async () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const weird = (
      <>
        <Tool name="big_int" input={empty} execute={() => ({ count: 10n })} />
        <Tool name="cycle" input={empty} execute={() => cyclic} />
        <Tool name="symbol" input={empty} execute={() => Symbol('s')} />
      </>
    );
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'big_int' }, { toolName: 'cycle' }, { toolName: 'symbol' }] },
      'Done.',
    ]);
    const session = createSession(<FaultAgent extra={weird} />, { model });
    const result = await session.run();
    expect(result.status).toBe('completed');
    expect(toolOutputs(session)).toEqual([
      '[unserializable tool output: Do not know how to serialize a BigInt]',
      expect.stringMatching(/^\[unserializable tool output: Converting circular structure/),
      null,
    ]);
    // The state stays plain JSON, so it can be saved and resumed.
    expect(JSON.parse(JSON.stringify(session.state))).toEqual(session.state);
  });

  it('a tool that returns a huge value', async () => {
    const huge = 'x'.repeat(5_000_000);
    const dump = <Tool name="dump" input={empty} execute={() => huge} />;
    const model = scriptedModel([call({}, 'dump'), 'Done.']);
    const session = createSession(<FaultAgent extra={dump} />, { model });
    const w = watch(session);
    const result = await session.run();
    expect(result.status).toBe('completed');

    const [seen] = toolOutputs(session) as string[];
    expect(seen?.length).toBeLessThan(100_300);
    expect(seen?.startsWith('x'.repeat(100_000))).toBe(true);
    expect(seen?.slice(100_000)).toBe(
      '\n\n[Output truncated: 4,900,000 of 5,000,000 characters cut; only the first 100,000 are ' +
        'shown. Ask for less (a narrower query, a range, a summary) to see the rest.]',
    );
    // What the model was sent on the next tick is the cut-down text.
    const sent = JSON.stringify(model.calls[1]?.prompt);
    expect(sent.length).toBeLessThan(150_000);
    // The host still has all of it.
    const [event] = w.ofType('tool:result');
    expect(event?.truncated?.originalChars).toBe(5_000_000);
    expect(event?.truncated?.fullOutput).toBe(huge);
  });
});
