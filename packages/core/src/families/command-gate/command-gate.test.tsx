import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireSystem, type ScriptedTurn, scriptedModel } from '@agate/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type AgateEvent,
  CommandGate,
  type CommandGateProps,
  createSession,
  PhaseGates,
  Shell,
  System,
  Timeline,
  User,
} from '../../index.js';
import { commandEnvironment, resolvePolicy } from '../../shell/policy.js';
import { runShellCommand } from '../../shell/run-command.js';
import { decisionEvent } from '../../telemetry/decision-events.js';

const sandboxWorks = requireSystem({
  tests: '<CommandGate> in the sandbox',
  needs: 'bubblewrap (bwrap) with user namespaces',
  enable: 'apt-get install -y bubblewrap',
  command: 'bwrap',
  probe: () =>
    spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-all', '--', '/bin/true']).status === 0,
});

const BROKEN = 'exports.add = (a, b) => a - b;\n';
const FIXED = 'exports.add = (a, b) => a + b;\n';
const TEST = `const test = require('node:test');
const assert = require('node:assert');
const { add } = require('./math.js');
test('adds', () => { assert.strictEqual(add(2, 3), 5); });
test('adds zero', () => { assert.strictEqual(add(2, 0), 2); });
`;
const FIX = "sed -i 's/a - b/a + b/' math.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agate-command-gate-'));
  writeFileSync(join(dir, 'math.js'), BROKEN);
  writeFileSync(join(dir, 'math.test.js'), TEST);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function Agent(props: Partial<CommandGateProps> & { phase?: boolean }) {
  const { phase, ...gate } = props;
  return (
    <>
      <System>You fix bugs with bash.</System>
      <User>Fix add() in math.js.</User>
      <Timeline />
      <Shell cwd={dir} />
      <CommandGate name="tests" run="node --test" cwd={dir} {...gate} />
      {phase ? <PhaseGates mode="block" verification="project-tests" workspace={dir} /> : null}
    </>
  );
}

const bash = (command: string): ScriptedTurn => ({
  toolCalls: [{ toolName: 'bash', input: { command } }],
});

type Ran = Extract<AgateEvent, { type: 'command-gate:ran' }>;
const runs = (events: readonly AgateEvent[]) =>
  events.filter((e): e is Ran => e.type === 'command-gate:ran');
const blocked = (events: readonly AgateEvent[]) =>
  events.filter((e) => e.type === 'exit:blocked') as Array<
    Extract<AgateEvent, { type: 'exit:blocked' }>
  >;
const hostChecks = (timeline: ReadonlyArray<{ role: string; content: unknown }>) =>
  timeline
    .filter((m) => m.role === 'user' && typeof m.content === 'string')
    .map((m) => m.content as string)
    .filter((t) => t.startsWith('[host check'));

/** The text the model was shown on each tick after a refusal (the notice). */
function notices(session: ReturnType<typeof createSession>): string[] {
  return session
    .ticks()
    .flatMap((t) => t.request?.ephemeral ?? [])
    .filter((e) => e.includes('EXIT REFUSED'));
}

describe.runIf(sandboxWorks)('<CommandGate> runs the check itself, in the sandbox', () => {
  it('refuses with the runner summary and the tail, then clears once the fix passes (scripted model)', async () => {
    const model = scriptedModel(['Done.', bash(FIX), 'Done, fixed.']);
    const session = createSession(<Agent />, { model, tickLog: {} });
    const result = await session.run();
    expect(result.status).toBe('completed');
    const ran = runs(result.events);
    expect(ran.map((r) => [r.tick, r.passed, r.exitCode])).toEqual([
      [1, false, 1],
      [3, true, 0],
    ]);
    expect(ran[0]!.summary).toMatch(/fail 1/);
    // The refusal names the gate, the runner's summary, and shows the failing assertion's tail.
    const [refusal] = blocked(result.events);
    expect(refusal!.gates).toEqual(['tests']);
    expect(refusal!.reasons[0]).toMatch(
      /^Command gate "tests" \(refusal 1 of 5\): the host ran `node --test` failed \(exit code 1; ".*fail 1.*"\)\.$/,
    );
    const [notice] = notices(session);
    expect(notice).toContain('EXIT REFUSED');
    expect(notice).toContain('Output (tail):');
    expect(notice).toMatch(/3 !== 5|Expected values to be strictly equal/);
    // The model reads both runs in its history, as host checks.
    const checks = hostChecks(session.state.timeline);
    expect(checks).toHaveLength(2);
    expect(checks[0]).toMatch(
      /^\[host check "tests"\] At your attempt to finish, the host ran `node --test` itself: failed \(exit code 1/,
    );
    expect(checks[1]).toMatch(/itself: passed \(exit code 0/);
    expect(result.commandGates).toEqual({ tests: 'passed' });
    // Counted in the tick log and in spans (as a decision event).
    const logged = session
      .ticks()
      .flatMap((t) => t.decisions.filter((d) => d.type === 'command-gate:ran'));
    expect(logged).toHaveLength(2);
    expect(decisionEvent(ran[0]!)).toMatchObject({
      name: 'agate.command-gate.ran',
      attributes: {
        'agate.command_gate.name': 'tests',
        'agate.command_gate.passed': false,
        'agate.command_gate.exit_code': 1,
      },
    });
    session.dispose();
  });

  it('does not run the check again while the workspace is unchanged', async () => {
    const model = scriptedModel(['Done.', 'Still done.', bash(FIX), 'Done.', 'Done again.']);
    const session = createSession(<Agent />, { model, tickLog: {} });
    const first = await session.run();
    expect(first.status).toBe('completed');
    // Two refusals, one run: the second attempt changed nothing and is refused from the first run.
    expect(runs(first.events).map((r) => r.tick)).toEqual([1, 4]);
    expect(blocked(first.events)[1]!.reasons[0]).toMatch(
      /refusal 2 of 5\): the host ran `node --test` failed .* at tick 1 and was not run again: the workspace has not changed since\.$/,
    );
    // A new turn with nothing changed: cleared without a run.
    const second = await session.run();
    expect(second.status).toBe('completed');
    expect(runs(second.events)).toEqual([]);
    session.dispose();
  });

  it('a touched file is not a change; an edited one is', async () => {
    writeFileSync(join(dir, 'math.js'), FIXED);
    const model = scriptedModel([
      'Done.',
      bash('touch math.js'),
      'Done.',
      bash("sed -i 's/a + b/b + a/' math.js"),
      'Done.',
    ]);
    const session = createSession(<Agent />, { model });
    const result = await session.run();
    expect(result.status).toBe('completed');
    expect(runs(result.events).map((r) => [r.tick, r.passed])).toEqual([[1, true]]);
    const again = await session.run();
    expect(runs(again.events).map((r) => [r.tick, r.passed])).toEqual([]);
    const edit = await session.run();
    expect(edit.status).toBe('completed');
    expect(runs(edit.events).map((r) => [r.tick, r.passed])).toEqual([[5, true]]);
    session.dispose();
  });

  it('ends the run blocked after maxBlocks refusals', async () => {
    const model = scriptedModel(['Done.', bash('echo // x >> math.js'), 'Done.', 'Done.']);
    const session = createSession(<Agent maxBlocks={2} />, { model });
    const result = await session.run();
    expect(result.status).toBe('blocked');
    expect(result.reason).toMatch(
      /^Command gate "tests" refused 3 attempts to finish \(maxBlocks 2\)/,
    );
    expect(blocked(result.events).map((b) => b.final)).toEqual([false, false, true]);
    expect(result.commandGates).toEqual({ tests: 'failed' });
    session.dispose();
  });

  it('a check over timeoutMs is killed and refused', async () => {
    const model = scriptedModel(['Done.']);
    const session = createSession(<Agent run="sleep 30" timeoutMs={300} maxBlocks={1} />, {
      model,
    });
    const started = Date.now();
    const result = await session.run({ maxTicks: 1 });
    expect(Date.now() - started).toBeLessThan(10_000);
    const [ran] = runs(result.events);
    expect(ran).toMatchObject({ passed: false, timedOut: true });
    expect(blocked(result.events)[0]!.reasons[0]).toContain(
      'timed out after 300 ms and was killed',
    );
    session.dispose();
  });

  it('bounds huge output: the refusal and the timeline keep only the tail', async () => {
    const model = scriptedModel(['Done.']);
    const loud = `node -e "process.stdout.write('x'.repeat(3000000) + '\\nLAST LINE\\n'); process.exit(2)"`;
    const session = createSession(<Agent run={loud} tailChars={500} maxBlocks={3} />, {
      model,
      tickLog: {},
    });
    const result = await session.run({ maxTicks: 2 });
    const [check] = hostChecks(session.state.timeline);
    expect(check!.length).toBeLessThan(1_000);
    expect(check).toContain('LAST LINE');
    expect(check).toMatch(/characters cut/);
    expect(result.events.filter((e) => e.type === 'exit:blocked')).toHaveLength(1);
    const [notice] = notices(session);
    expect(notice!.length).toBeLessThan(2_000);
    session.dispose();
  });

  it('no bubblewrap: refuses with the same message <Shell> gives, and the check does not count', async () => {
    const model = scriptedModel(['Done.']);
    const session = createSession(<Agent bwrap="/nonexistent/bwrap" maxBlocks={3} />, {
      model,
    });
    const result = await session.run({ maxTicks: 1 });
    const [ran] = runs(result.events);
    expect(ran!.passed).toBe(false);
    expect(ran!.notRun).toMatch(/bubblewrap \(bwrap\) is not installed.*sandbox=\{false\}/);
    expect(blocked(result.events)[0]!.reasons[0]).toMatch(
      /could not run: <Shell> runs every command in a bubblewrap sandbox/,
    );
    session.dispose();
  });

  it('composes with <PhaseGates>: a host check of the project tests is the project tests', async () => {
    writeFileSync(join(dir, 'math.js'), BROKEN);
    const model = scriptedModel([bash('cat math.js'), bash(FIX), 'Fixed.']);
    const session = createSession(<Agent phase />, { model });
    const result = await session.run();
    expect(result.status).toBe('completed');
    expect(result.phase).toMatchObject({ verification: true, readiness: true });
    session.dispose();
  });

  it('composes with <PhaseGates>: a host check of a script the agent wrote is not the project tests', async () => {
    const repro = `cat > repro.js <<'EOF'\nconst { add } = require('./math.js');\nprocess.exit(add(2, 3) === 5 ? 0 : 1);\nEOF`;
    const model = scriptedModel([bash('cat math.js'), bash(repro), bash(FIX), 'Fixed.']);
    const session = createSession(<Agent phase run="node repro.js" maxBlocks={1} />, { model });
    const result = await session.run({ maxTicks: 4 });
    const last = blocked(result.events).at(-1);
    expect(runs(result.events).map((r) => r.passed)).toEqual([true]);
    expect(last?.gates).toEqual(['phase-gates']);
    expect(last?.reasons.join(' ')).toMatch(/project's own tests/);
    session.dispose();
  });

  it("a real pytest project: refuses with pytest's summary line, clears after the fix", async (ctx) => {
    // pytest must be importable inside the sandbox (a python3 under /root is not, for example).
    const probe = await runShellCommand({
      command: 'python3 -m pytest --version',
      policy: resolvePolicy(dir),
      cwd: dir,
      env: commandEnvironment(process.env),
      timeoutMs: 30_000,
      maxOutputChars: 2_000,
      signal: new AbortController().signal,
    });
    if (probe.exitCode !== 0) ctx.skip();
    writeFileSync(join(dir, 'calc.py'), 'def add(a, b):\n    return a - b\n');
    writeFileSync(
      join(dir, 'test_calc.py'),
      'from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n\ndef test_zero():\n    assert add(2, 0) == 2\n',
    );
    const model = scriptedModel(['Done.', bash("sed -i 's/a - b/a + b/' calc.py"), 'Done.']);
    const session = createSession(<Agent run="python3 -m pytest -q -p no:cacheprovider" />, {
      model,
    });
    const result = await session.run();
    expect(result.status).toBe('completed');
    const ran = runs(result.events);
    expect(ran.map((r) => r.passed)).toEqual([false, true]);
    expect(ran[0]!.summary).toMatch(/1 failed, 1 passed/);
    expect(blocked(result.events)[0]!.reasons[0]).toMatch(/"=* ?1 failed, 1 passed/);
    session.dispose();
  }, 120_000);
});

describe('<CommandGate> props', () => {
  const cases: Array<[Partial<CommandGateProps>, RegExp]> = [
    [{ name: 'has space' }, /the name must be 1 to 64 letters/],
    [{ run: '  ' }, /run must be the command line of the check/],
    [{ cwd: 'relative/dir' }, /cwd must be an absolute path/],
    [{ timeoutMs: 0 }, /timeoutMs=\{0\} must be a whole number from 1/],
    [{ maxBlocks: 1.5 }, /maxBlocks=\{1.5\} must be a whole number from 1/],
    [{ tailChars: 10_000_000 }, /tailChars=\{10000000\} must be a whole number from 1 to 20,000/],
  ];
  for (const [props, message] of cases) {
    it(`refuses ${JSON.stringify(props)}`, async () => {
      const session = createSession(<Agent {...props} />, { model: scriptedModel(['Done.']) });
      const result = await session.run();
      expect(result.status).toBe('error');
      expect(result.reason).toMatch(message);
      session.dispose();
    });
  }
});
