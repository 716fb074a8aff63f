import { spawnSync } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgateEvent } from '@agate/core';
import { requireSystem, scriptedModel } from '@agate/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { runCommandGateAgent } from './agent.js';
import { hastyModel, stubbornModel } from './offline-model.js';
import { BROKEN, createProject } from './project.js';

// The gate's check and the agent's bash both run in <Shell>'s bubblewrap sandbox.
const sandboxWorks = requireSystem({
  tests: 'the <CommandGate> example',
  needs: 'bubblewrap (bwrap) with user namespaces',
  enable: 'apt-get install -y bubblewrap',
  debianPackage: 'bubblewrap',
  command: 'bwrap',
  probe: () =>
    spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-all', '--', '/bin/true']).status === 0,
});

type Ran = Extract<AgateEvent, { type: 'command-gate:ran' }>;
const ranOf = (events: readonly AgateEvent[]) =>
  events.filter((e): e is Ran => e.type === 'command-gate:ran');
const finishResults = (events: readonly AgateEvent[]) =>
  events.filter((e) => e.type === 'exit:blocked');

/** The project's own tests, run here on the host: what the gate's verdict must agree with. */
const nodeTest = (repo: string) =>
  spawnSync(process.execPath, ['--test'], { cwd: repo, encoding: 'utf8' }).status;

let repo: string | undefined;
afterEach(async () => {
  if (repo !== undefined) await rm(repo, { recursive: true, force: true });
  repo = undefined;
});

describe.runIf(sandboxWorks)('command-gate-agent example', () => {
  it('a "done" before the fix is refused with the failing test; the fixed project completes', async () => {
    repo = await createProject();
    expect(nodeTest(repo)).toBe(1);
    const result = await runCommandGateAgent({ repo, model: hastyModel() });
    expect(result.status).toBe('completed');
    expect(result.commandGates).toEqual({ tests: 'passed' });
    // The host ran the real suite twice: failing at the claim, passing after the fix.
    const ran = ranOf(result.events);
    expect(ran.map((r) => [r.tick, r.passed, r.exitCode])).toEqual([
      [2, false, 1],
      [4, true, 0],
    ]);
    expect(ran[0]?.summary).toMatch(/fail 1/);
    const [refusal] = finishResults(result.events);
    expect(refusal).toMatchObject({ tick: 2, gates: ['tests'], final: false });
    expect(JSON.stringify(refusal)).toMatch(/the host ran `node --test` failed \(exit code 1/);
    expect(await readFile(join(repo, 'math.js'), 'utf8')).toBe('exports.add = (a, b) => a + b;\n');
    expect(nodeTest(repo)).toBe(0);
  });

  it('a model that keeps saying "done" on a broken project ends blocked, the check run once', async () => {
    repo = await createProject();
    const result = await runCommandGateAgent({ repo, model: stubbornModel(), maxBlocks: 2 });
    expect(result.status).toBe('blocked');
    expect(result.commandGates).toEqual({ tests: 'failed' });
    expect(finishResults(result.events).map((e) => 'final' in e && e.final)).toEqual([
      false,
      false,
      true,
    ]);
    // The workspace did not change after the first run: refused from it, not run again.
    expect(ranOf(result.events)).toHaveLength(1);
    expect(nodeTest(repo)).toBe(1);
  });
});

describe('command-gate-agent example without bubblewrap', () => {
  it("refuses to finish with <Shell>'s message; the check never ran on the host", async () => {
    repo = await createProject();
    const result = await runCommandGateAgent({
      repo,
      model: scriptedModel(['Done.'], { whenExhausted: 'repeat-last' }),
      maxBlocks: 1,
      bwrap: join(repo, 'no-such-bwrap'),
    });
    expect(result.status).toBe('blocked');
    const ran = ranOf(result.events);
    // A check that could not start is tried again at each attempt (bubblewrap may appear).
    expect(ran.map((r) => [r.passed, r.exitCode])).toEqual([
      [false, null],
      [false, null],
    ]);
    expect(ran[0]?.notRun).toMatch(/bubblewrap|bwrap/);
    expect(JSON.stringify(finishResults(result.events)[0])).toMatch(/bubblewrap|bwrap/);
    expect(await readFile(join(repo, 'math.js'), 'utf8')).toBe(BROKEN);
  });
});
