/**
 * Issue 11 read as an outside checker would: each promise of the issue tried once through the
 * public API only (`@agate/core`, `@agate/testing`, a real HTTP provider on loopback), written
 * from the words rather than from the fault suite next to it.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AgateEvent,
  ContinueGate,
  createFileStore,
  createSession,
  Gate,
  InvalidOptionError,
  ModelCallError,
  type SessionStore,
  System,
  Timeline,
  Tool,
  User,
} from '@agate/core';
import { scaledLimit, scriptedModel, startOpenAICompatibleServer } from '@agate/testing';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

function agent(...children: React.ReactNode[]) {
  return (
    <>
      <System>You run tools.</System>
      <User>Go.</User>
      <Timeline />
      {children}
    </>
  );
}

describe('issue 11.1: abort always returns', () => {
  it('returns aborted well under a second while a tool ignores its signal; the late result never lands; run() again resumes', async () => {
    const events: AgateEvent[] = [];
    const controller = new AbortController();
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'stubborn', input: {} }] },
      { toolCalls: [{ toolName: 'stubborn', input: {} }] },
      'Done after resuming.',
    ]);
    let calls = 0;
    const seen: { signal?: AbortSignal; finished: boolean } = { finished: false };
    // Resolved when the stubborn tool has returned its late result: waited for below, not
    // guessed with a fixed delay (its 400 ms timer runs late on a loaded machine).
    let lateResultReturned: () => void = () => {};
    const lateResult = new Promise<void>((resolve) => {
      lateResultReturned = resolve;
    });
    const session = createSession(
      agent(
        <Tool
          key="t"
          name="stubborn"
          description="A shell command that does not listen"
          input={z.object({})}
          execute={async (_input, { abortSignal }) => {
            calls++;
            if (calls === 1) return 'first call done';
            seen.signal = abortSignal;
            await new Promise((resolve) => setTimeout(resolve, 400));
            seen.finished = true;
            // A moment past its return, for anything the runtime would do with the late result.
            setTimeout(lateResultReturned, 50);
            return 'LATE RESULT';
          }}
        />,
      ),
      { model, onEvent: (event) => void events.push(event) },
    );
    session.subscribe((event) => {
      if (event.type === 'tool:call' && event.tick === 2) setTimeout(() => controller.abort(), 20);
    });
    const started = Date.now();
    const abortAt = { t: 0 };
    controller.signal.addEventListener('abort', () => {
      abortAt.t = Date.now();
    });
    const result = await session.run({ signal: controller.signal });
    const returnedAfterAbort = Date.now() - abortAt.t;
    expect(result.status).toBe('aborted');
    expect(returnedAfterAbort).toBeLessThan(scaledLimit(500));
    expect(Date.now() - started).toBeLessThan(scaledLimit(1_000));
    expect(seen.signal?.aborted).toBe(true);
    const afterTick1 = JSON.stringify(session.state.timeline);
    expect(session.state.tick).toBe(1);

    // The stubborn tool finishes on its own later: nothing of it reaches the state or events.
    await lateResult;
    expect(seen.finished).toBe(true);
    expect(JSON.stringify(session.state.timeline)).toBe(afterTick1);
    expect(JSON.stringify(session.state.timeline)).not.toContain('LATE RESULT');
    expect(JSON.stringify(events)).not.toContain('LATE RESULT');

    // run() again resumes from tick 1: the model is asked for tick 2 afresh.
    const again = await session.run();
    expect(model.calls).toHaveLength(3);
    expect(again.status).toBe('completed');
    expect(again.text).toBe('Done after resuming.');
  }, 10_000);

  for (const streaming of [false, true]) {
    it(`returns aborted well under a second while the model hangs and ignores its signal (streaming: ${streaming})`, async () => {
      let hung = 0;
      const hang = () => {
        hung++;
        return new Promise<never>(() => {}); // never settles, never looks at abortSignal
      };
      const model = new MockLanguageModelV4({
        provider: 'hanging',
        modelId: 'hang',
        doGenerate: hang,
        doStream: hang,
      });
      const controller = new AbortController();
      const session = createSession(agent(), { model, streaming });
      setTimeout(() => controller.abort(), 50);
      const started = Date.now();
      const result = await session.run({ signal: controller.signal });
      expect(result.status).toBe('aborted');
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(hung).toBe(1);
      expect(session.state.tick).toBe(0);
      expect(session.state.timeline.filter((m) => m.role === 'assistant')).toHaveLength(0);
    });
  }
});

describe("issue 11.1: aborted through the session's own signal option", () => {
  it('the reason says how to resume, and a run with a fresh signal does', async () => {
    const controller = new AbortController();
    const session = createSession(agent(), {
      model: scriptedModel([{ delayMs: 5_000, text: 'never' }, 'Resumed.']),
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 20);
    const aborted = await session.run();
    expect(aborted.status).toBe('aborted');
    // That signal stays aborted: a bare run() cannot resume, so the reason must not say it would.
    expect(aborted.reason).toContain('with a fresh signal (run({ signal }))');
    expect((await session.run()).status).toBe('aborted');
    const resumed = await session.run({ signal: new AbortController().signal });
    expect(resumed.status).toBe('completed');
    expect(resumed.text).toBe('Resumed.');
  });
});

describe('issue 11.2: tool time limits', () => {
  for (const how of ['<Tool timeoutMs>', 'toolTimeoutMs'] as const) {
    it(`${how}: the model sees "name timed out after N ms", the abortSignal fires, the run goes on`, async () => {
      let signal: AbortSignal | undefined;
      const model = scriptedModel([
        { toolCalls: [{ toolName: 'slow_fetch', input: {} }] },
        'I will do without it.',
      ]);
      const result = await createSession(
        agent(
          <Tool
            key="t"
            name="slow_fetch"
            description="A hung HTTP call"
            input={z.object({})}
            {...(how === '<Tool timeoutMs>' ? { timeoutMs: 40 } : {})}
            execute={(_input, { abortSignal }) => {
              signal = abortSignal;
              return new Promise(() => {});
            }}
          />,
        ),
        { model, ...(how === 'toolTimeoutMs' ? { toolTimeoutMs: 40 } : {}) },
      ).run();
      expect(result.status).toBe('completed');
      expect(signal?.aborted).toBe(true);
      const toolResults = result.timeline.flatMap((m) =>
        m.role === 'tool' && Array.isArray(m.content) ? m.content : [],
      );
      expect(toolResults).toMatchObject([
        { toolName: 'slow_fetch', output: { type: 'error-text' } },
      ]);
      expect(JSON.stringify(toolResults[0])).toContain(
        String.raw`Tool \"slow_fetch\" timed out after 40 ms`,
      );
      const toolResult = result.events.find((e) => e.type === 'tool:result');
      expect(toolResult).toMatchObject({ isError: true });
      // The model was told on its next request.
      expect(JSON.stringify(model.calls[1]?.prompt)).toContain('timed out after 40 ms');
    });
  }
});

describe('issue 11.2: a tool that listens to its signal', () => {
  it('rejecting with the abort reason at the timeout still reads "timed out after N ms"', async () => {
    const model = scriptedModel([{ toolCalls: [{ toolName: 'fetch', input: {} }] }, 'ok']);
    const result = await createSession(
      agent(
        <Tool
          key="f"
          name="fetch"
          description="A polite HTTP call"
          input={z.object({})}
          timeoutMs={30}
          execute={(_input, { abortSignal }) =>
            new Promise((_resolve, reject) => {
              abortSignal.addEventListener('abort', () => reject(abortSignal.reason));
            })
          }
        />,
      ),
      { model },
    ).run();
    expect(result.status).toBe('completed');
    const event = result.events.find((e) => e.type === 'tool:result');
    expect(event).toMatchObject({ isError: true });
    expect(JSON.stringify(event)).toContain('timed out after 30 ms');
  });
});

describe('issue 11.3: observers are observers', () => {
  it('a session.subscribe listener that throws: run() resolves, one warning', async () => {
    const session = createSession(agent(), { model: scriptedModel(['Fine.']) });
    session.subscribe(() => {
      throw new Error('subscriber bug');
    });
    const result = await session.run();
    expect(result.status).toBe('completed');
    const warnings = result.events.filter((e) => e.type === 'warning');
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0])).toContain('subscriber bug');
  });

  const script = () =>
    scriptedModel([{ toolCalls: [{ toolName: 'note', input: {} }] }, 'Finished.']);
  const noteTool = (
    <Tool key="n" name="note" description="Take a note" input={z.object({})} execute={() => 'ok'} />
  );

  it('a listener that throws never changes the outcome, run() resolves, one warning', async () => {
    const baseline = await createSession(agent(noteTool), { model: script(), id: 'x' }).run();
    let thrown = 0;
    const result = await createSession(agent(noteTool), {
      model: script(),
      id: 'x',
      onEvent: () => {
        thrown++;
        throw new Error('listener bug');
      },
    }).run();
    expect(thrown).toBeGreaterThan(1);
    expect(result.status).toBe(baseline.status);
    expect(result.text).toBe(baseline.text);
    expect(result.timeline).toEqual(baseline.timeline);
    const warnings = result.events.filter((e) => e.type === 'warning');
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0])).toContain('listener bug');
  });

  it('a listener that returns a rejected promise: the same', async () => {
    const baseline = await createSession(agent(noteTool), { model: script(), id: 'y' }).run();
    const result = await createSession(agent(noteTool), {
      model: script(),
      id: 'y',
      onEvent: () => Promise.reject(new Error('async listener bug')),
    }).run();
    // Let the rejections settle, then nothing more may surface.
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(result.status).toBe(baseline.status);
    expect(result.timeline).toEqual(baseline.timeline);
    const warnings = result.events.filter((e) => e.type === 'warning');
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0])).toContain('async listener bug');
  });
});

describe('issue 11.4: bounded tool output', () => {
  it('cuts at 100,000 characters by default, says how much was cut, keeps the full value in the event', async () => {
    const huge = 'x'.repeat(5_000_000);
    const model = scriptedModel([{ toolCalls: [{ toolName: 'dump', input: {} }] }, 'ok']);
    const result = await createSession(
      agent(
        <Tool key="d" name="dump" description="Dump" input={z.object({})} execute={() => huge} />,
      ),
      { model },
    ).run();
    expect(result.status).toBe('completed');
    const sent = JSON.stringify(model.calls[1]?.prompt);
    expect(sent.length).toBeLessThan(120_000);
    expect(sent).toMatch(/4,900,000 of 5,000,000 characters cut/);
    const event = result.events.find((e) => e.type === 'tool:result');
    expect(event?.type === 'tool:result' && event.truncated?.originalChars).toBe(5_000_000);
    expect(event?.type === 'tool:result' && event.truncated?.fullOutput).toBe(huge);
  });

  it('a huge value that is not a string is cut as JSON text; the event keeps the value itself', async () => {
    const rows = Array.from({ length: 30_000 }, (_, i) => ({ id: i, name: `row ${i}` }));
    const model = scriptedModel([{ toolCalls: [{ toolName: 'query', input: {} }] }, 'ok']);
    const result = await createSession(
      agent(
        <Tool key="q" name="query" description="Query" input={z.object({})} execute={() => rows} />,
      ),
      { model, maxToolOutputChars: 1_000 },
    ).run();
    expect(result.status).toBe('completed');
    const full = JSON.stringify(rows).length;
    expect(JSON.stringify(model.calls[1]?.prompt).length).toBeLessThan(5_000);
    expect(JSON.stringify(model.calls[1]?.prompt)).toContain(
      `${(full - 1_000).toLocaleString('en-US')} of ${full.toLocaleString('en-US')} characters cut`,
    );
    const event = result.events.find((e) => e.type === 'tool:result');
    expect(event?.type === 'tool:result' && event.truncated).toEqual({
      originalChars: full,
      fullOutput: rows,
    });
  });

  it('maxToolOutputChars sets the bound', async () => {
    const model = scriptedModel([{ toolCalls: [{ toolName: 'dump', input: {} }] }, 'ok']);
    await createSession(
      agent(
        <Tool
          key="d"
          name="dump"
          description="Dump"
          input={z.object({})}
          execute={() => 'y'.repeat(1_000)}
        />,
      ),
      { model, maxToolOutputChars: 100 },
    ).run();
    const sent = JSON.stringify(model.calls[1]?.prompt);
    expect(sent).toContain('y'.repeat(100));
    expect(sent).not.toContain('y'.repeat(101));
    expect(sent).toMatch(/900 of 1,000 characters cut/);
  });
});

describe('issue 11.5: reasons that locate the fault', () => {
  const oneToolTick = () =>
    scriptedModel([
      { toolCalls: [{ toolName: 'note', input: {} }] },
      { error: new Error('socket hang up') },
    ]);
  const noteTool = (
    <Tool key="n" name="note" description="Take a note" input={z.object({})} execute={() => 'ok'} />
  );

  for (const streaming of [false, true]) {
    it(`model call: tick, step and message (streaming: ${streaming})`, async () => {
      const session = createSession(agent(noteTool), { model: oneToolTick(), streaming });
      const result = await session.run();
      expect(result.status).toBe('error');
      expect(result.reason).toMatch(/^Tick 2, model call: .*socket hang up/);
      expect(result.error).toMatchObject({ tick: 2, step: 'model call' });
      expect(session.state.tick).toBe(1);
    });
  }

  it('bad options are thrown before a run starts (InvalidOptionError), as the docs say', () => {
    expect(() => createSession(agent(), { model: oneToolTick(), toolTimeoutMs: -5 })).toThrow(
      InvalidOptionError,
    );
    expect(() => createSession(agent(), { model: oneToolTick(), maxToolOutputChars: 0 })).toThrow(
      InvalidOptionError,
    );
  });

  it('guard: tick, step and message', async () => {
    const result = await createSession(
      agent(
        noteTool,
        <Gate
          key="g"
          name="review"
          description="Review"
          instructions="Review first."
          activateWhen={() => {
            throw new Error('predicate bug');
          }}
        />,
      ),
      { model: scriptedModel([{ toolCalls: [{ toolName: 'note', input: {} }] }, 'done']) },
    ).run();
    expect(result.status).toBe('error');
    expect(result.reason).toMatch(/^Tick 1, guard: .*predicate bug/);
    expect(result.error).toMatchObject({ tick: 1, step: 'guard' });
  });

  it('store: tick, step and message (a store whose save rejects when the run pauses or checkpoints)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agate-acc-store-'));
    try {
      const real = createFileStore(dir);
      const failing: SessionStore = {
        ...real,
        save: () => Promise.reject(new Error('EIO: disk gone')),
        saveRestorePoint: () => Promise.reject(new Error('EIO: disk gone')),
      };
      const result = await createSession(
        agent(noteTool, <ContinueGate key="c" checkpointIntervalSteps={1} />),
        {
          model: scriptedModel([{ toolCalls: [{ toolName: 'note', input: {} }] }, 'done'], {
            whenExhausted: 'repeat-last',
          }),
          store: failing,
        },
      ).run();
      expect(result.status).toBe('error');
      expect(result.reason).toMatch(/^Tick \d+, store: .*EIO: disk gone/);
      expect(result.error?.step).toBe('store');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('provider errors keep their status code and whether they were retried', async () => {
    const server = await startOpenAICompatibleServer(() => ({
      error: { status: 500, message: 'upstream exploded', headers: { 'retry-after-ms': '1' } },
    }));
    const bad = await startOpenAICompatibleServer(() => ({
      error: { status: 400, message: 'bad request body' },
    }));
    try {
      const provider = (baseURL: string): LanguageModel =>
        createOpenAICompatible({ name: 'local', baseURL })('m');
      const five = await createSession(agent(), { model: provider(server.baseURL) }).run();
      expect(five.status).toBe('error');
      expect(five.reason).toMatch(/^Tick 1, model call: .*upstream exploded/);
      expect(five.reason).toMatch(/HTTP 500/);
      expect(five.reason).toMatch(/gave up after 3 attempts/);
      expect(five.error).toBeInstanceOf(ModelCallError);
      expect(five.error).toMatchObject({ statusCode: 500, attempts: 3, retryable: true });
      expect(server.requests).toHaveLength(3);

      const four = await createSession(agent(), { model: provider(bad.baseURL) }).run();
      expect(four.reason).toMatch(
        /^Tick 1, model call: .*bad request body.*HTTP 400.*not retryable/,
      );
      expect(four.error).toMatchObject({ statusCode: 400, attempts: 1, retryable: false });
      expect(bad.requests).toHaveLength(1);
    } finally {
      await server.close();
      await bad.close();
    }
  });
});
