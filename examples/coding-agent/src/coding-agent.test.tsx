import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgateEvent, ShellResult } from '@agate/core';
import { workspaceTracker } from '@agate/example-kit';
import { requireSystem, scriptedModel } from '@agate/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { runCodingAgent, testsPassedAfterLastWrite } from './agent.js';
import { FIXED_MATH, offlineModel } from './offline-model.js';
import { createPrinter } from './print.js';
import { runNodeTests } from './run-tests.js';
import { BUGGY_MATH, createWorkspace } from './workspace.js';

const { workspace, cleanup } = workspaceTracker(createWorkspace);
afterEach(cleanup);

/** The sandboxed `node --test` results the model saw, in order. */
function testRuns(events: readonly AgateEvent[]): ShellResult[] {
  return events.flatMap((e) =>
    e.type === 'tool:result' && e.toolName === 'bash' ? [e.output as unknown as ShellResult] : [],
  );
}

// The agent's commands run in <Shell>'s bubblewrap sandbox.
const sandboxWorks = requireSystem({
  tests: 'sandboxed shell examples',
  needs: 'bubblewrap (bwrap) with user namespaces',
  enable: 'apt-get install -y bubblewrap',
  debianPackage: 'bubblewrap',
  command: 'bwrap',
  probe: () =>
    spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-all', '--', '/bin/true']).status === 0,
});
const nodeTest = { toolName: 'bash', input: { command: 'node --test' } };

describe('runNodeTests (the kit) runs the real suite', () => {
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

describe.skipIf(!sandboxWorks)('the coding agent, offline', () => {
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
    expect(runs[0]).toMatchObject({ exitCode: 0, timedOut: false });
    expect(runs[0]?.stdout).toMatch(/✔ add adds/);

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
            nodeTest,
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
    expect(testRuns(events)[0]).toMatchObject({ exitCode: 1 });
    const setKnob = events.find((e) => e.type === 'tool:result' && e.toolName === 'set_knob');
    expect(setKnob).toMatchObject({ isError: true });
  });
});

describe.skipIf(!sandboxWorks)('the coding agent within a context budget', () => {
  it('prunes its oldest turns, never the gate or the refusal, and still ends blocked', async () => {
    const root = await workspace();
    const events: AgateEvent[] = [];
    // The model of the test above: a wrong fix, a try at clearing the gate, then "done" again and again.
    const model = scriptedModel(
      [
        {
          toolCalls: [
            { toolName: 'write_file', input: { path: 'math.js', content: BUGGY_MATH } },
            nodeTest,
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
      maxContextTokens: 1_090,
      onEvent: (e) => events.push(e),
    });
    expect(result.status).toBe('blocked');
    const pruned = events.filter((e) => e.type === 'context:pruned');
    expect(pruned.length).toBeGreaterThan(0);
    expect(pruned[0]).toMatchObject({ recut: true, maxTokens: 1_090 });
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
    toolCalls: calls.map(([toolName], i) => ({
      toolCallId: `c${i}`,
      toolName,
      input: toolName === 'bash' ? { command: 'node --test' } : {},
    })),
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
  const pass = { exitCode: 0, timedOut: false };
  const fail = { exitCode: 1, timedOut: false };

  it('needs a passing run after the last write', () => {
    expect(testsPassedAfterLastWrite([])).toBe(false);
    expect(
      testsPassedAfterLastWrite([
        tick([
          ['write_file', 'ok'],
          ['bash', pass],
        ]),
      ]),
    ).toBe(true);
    expect(
      testsPassedAfterLastWrite([
        tick([
          ['bash', pass],
          ['write_file', 'ok'],
        ]),
      ]),
    ).toBe(false);
    expect(testsPassedAfterLastWrite([tick([['write_file', 'ok']]), tick([['bash', fail]])])).toBe(
      false,
    );
    expect(testsPassedAfterLastWrite([tick([['bash', fail]]), tick([['bash', pass]])])).toBe(true);
  });
});
