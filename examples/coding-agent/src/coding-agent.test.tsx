import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgateEvent } from '@agate/core';
import { workspaceTracker } from '@agate/example-kit';
import { scriptedModel } from '@agate/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { runCodingAgent, testsPassedAfterLastWrite } from './agent.js';
import { FIXED_MATH, offlineModel } from './offline-model.js';
import { createPrinter } from './print.js';
import { runNodeTests, type TestRun } from './run-tests.js';
import { BUGGY_MATH, createWorkspace } from './workspace.js';

const { workspace, cleanup } = workspaceTracker(createWorkspace);
afterEach(cleanup);

/** The run_tests results the model saw, in order. */
function testRuns(events: readonly AgateEvent[]): TestRun[] {
  return events.flatMap((e) =>
    e.type === 'tool:result' && e.toolName === 'run_tests' ? [e.output as unknown as TestRun] : [],
  );
}

describe('run_tests runs the real suite', () => {
  it('fails on the seeded bug and passes once it is fixed', async () => {
    const root = await workspace();
    const before = await runNodeTests(root);
    expect(before).toMatchObject({ exitCode: 1, passed: false, timedOut: false });
    expect(before.output).toContain('add adds');

    await writeFile(join(root, 'math.js'), FIXED_MATH);
    const after = await runNodeTests(root);
    expect(after).toMatchObject({ exitCode: 0, passed: true, timedOut: false });
    expect(after.output).toMatch(/pass 1/);
  });
});

describe('the coding agent, offline', () => {
  it('is refused at its first finish, really runs the tests, clears the gate and completes', async () => {
    const root = await workspace();
    const events: AgateEvent[] = [];
    const printed: string[] = [];
    const print = createPrinter((t) => printed.push(t));
    const model = offlineModel();
    const result = await runCodingAgent({
      model,
      root,
      onEvent: (e) => {
        events.push(e);
        print(e);
      },
    });

    expect(result.status).toBe('completed');
    expect(result.gates).toEqual({ verification: 'inactive' });
    expect(await readFile(join(root, 'math.js'), 'utf8')).toBe(FIXED_MATH);

    // The first attempt to finish (tick 3, right after the edit) was refused by the gate.
    const exits = events.filter((e) => e.type === 'exit:attempt' || e.type === 'exit:blocked');
    expect(exits.map((e) => `${e.type}@${e.tick}`)).toEqual([
      'exit:attempt@3',
      'exit:blocked@3',
      'exit:attempt@6',
    ]);
    const blocked = events.find((e) => e.type === 'exit:blocked');
    expect(blocked?.type === 'exit:blocked' && blocked.gates).toEqual(['verification']);
    // The next request told the model why, and what to do.
    const afterRefusal = JSON.stringify(model.calls[3]?.prompt.at(-1));
    expect(afterRefusal).toContain('VERIFICATION PENDING');
    expect(afterRefusal).toContain('EXIT REFUSED');

    // The tests really ran, in the workspace, and passed.
    const runs = testRuns(events);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ exitCode: 0, passed: true });
    expect(runs[0]?.output).toMatch(/✔ add adds/);

    // The model cleared the gate itself, after the tests.
    expect(
      events
        .filter((e) => e.type.startsWith('gate:'))
        .map((e) => ('gate' in e && 'by' in e ? `${e.type} by ${e.by}` : e.type)),
    ).toEqual(['gate:activated by runtime', 'gate:cleared by model']);
    expect(printed.join('')).toContain('── tick 6 ──');
  });

  it('with a host-verified gate the passing tests clear it, and set_knob cannot', async () => {
    const root = await workspace();
    const events: AgateEvent[] = [];
    const result = await runCodingAgent({
      model: offlineModel({ hostVerified: true }),
      root,
      hostVerified: true,
      onEvent: (e) => events.push(e),
    });
    expect(result.status).toBe('completed');
    expect(result.ticks).toBe(5);
    const cleared = events.find((e) => e.type === 'gate:cleared');
    expect(cleared).toMatchObject({ gate: 'verification', by: 'host', tick: 4 });
  });

  it('a model that never makes the tests pass ends blocked, not completed', async () => {
    const root = await workspace();
    const events: AgateEvent[] = [];
    // It "fixes" the bug wrongly, runs the tests (they fail), and keeps saying it is done.
    const model = scriptedModel(
      [
        {
          toolCalls: [
            { toolName: 'write_file', input: { path: 'math.js', content: BUGGY_MATH } },
            { toolName: 'run_tests', input: {} },
          ],
        },
        {
          toolCalls: [{ toolName: 'set_knob', input: { name: 'verification', value: 'inactive' } }],
        },
        'Done, trust me.',
      ],
      { whenExhausted: 'repeat-last' },
    );
    const result = await runCodingAgent({
      model,
      root,
      hostVerified: true,
      onEvent: (e) => events.push(e),
    });
    expect(result.status).toBe('blocked');
    expect(result.reason).toContain('Gate "verification" refused 6 attempts');
    expect(testRuns(events)[0]).toMatchObject({ exitCode: 1, passed: false });
    const setKnob = events.find((e) => e.type === 'tool:result' && e.toolName === 'set_knob');
    expect(setKnob).toMatchObject({ isError: true });
  });
});

describe('the coding agent within a context budget', () => {
  it('prunes its oldest turns, never the gate or the refusal, and still ends blocked', async () => {
    const root = await workspace();
    const events: AgateEvent[] = [];
    // The model of the test above: a wrong fix, a try at clearing the gate, then "done" again and again.
    const model = scriptedModel(
      [
        {
          toolCalls: [
            { toolName: 'write_file', input: { path: 'math.js', content: BUGGY_MATH } },
            { toolName: 'run_tests', input: {} },
          ],
        },
        {
          toolCalls: [{ toolName: 'set_knob', input: { name: 'verification', value: 'inactive' } }],
        },
        'Done, trust me.',
      ],
      { whenExhausted: 'repeat-last' },
    );
    const result = await runCodingAgent({
      model,
      root,
      hostVerified: true,
      // Just above what may not be dropped (system, tools, task, the last 4 turns, the gate;
      // no set_knob: the host clears this gate).
      maxContextTokens: 1_000,
      onEvent: (e) => events.push(e),
    });
    expect(result.status).toBe('blocked');
    const pruned = events.filter((e) => e.type === 'context:pruned');
    expect(pruned.length).toBeGreaterThan(0);
    expect(pruned[0]).toMatchObject({ recut: true, maxTokens: 1_000 });
    // The first turn (the write and the failing tests) is gone; a marker says so.
    const last = model.calls.at(-1)!.prompt;
    expect(JSON.stringify(last)).not.toContain('"toolName":"write_file"');
    expect(JSON.stringify(last)).toMatch(/earlier messages omitted/);
    // Guard content is never pruned: the gate's instructions and the refusal are still sent.
    const ephemeral = JSON.stringify(last.at(-1));
    expect(ephemeral).toContain('VERIFICATION PENDING');
    expect(ephemeral).toContain('EXIT REFUSED');
  });
});

describe('testsPassedAfterLastWrite', () => {
  const tick = (calls: Array<[string, unknown]>) => ({
    tick: 1,
    toolCalls: calls.map(([toolName], i) => ({ toolCallId: `c${i}`, toolName, input: {} })),
    toolResults: calls.map(([toolName, output], i) => ({
      toolCallId: `c${i}`,
      toolName,
      output: output as never,
      isError: false,
    })),
    text: '',
    finishReason: 'tool-calls',
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  });
  const pass = { passed: true };
  const fail = { passed: false };

  it('needs a passing run after the last write', () => {
    expect(testsPassedAfterLastWrite([])).toBe(false);
    expect(
      testsPassedAfterLastWrite([
        tick([
          ['write_file', 'ok'],
          ['run_tests', pass],
        ]),
      ]),
    ).toBe(true);
    expect(
      testsPassedAfterLastWrite([
        tick([
          ['run_tests', pass],
          ['write_file', 'ok'],
        ]),
      ]),
    ).toBe(false);
    expect(
      testsPassedAfterLastWrite([tick([['write_file', 'ok']]), tick([['run_tests', fail]])]),
    ).toBe(false);
    expect(
      testsPassedAfterLastWrite([tick([['run_tests', fail]]), tick([['run_tests', pass]])]),
    ).toBe(true);
  });
});
