/**
 * Issue 41: the verification levels, on recorded runs (`replayPhaseGates`) and step lists
 * (`evaluatePhaseGates`). Runner output is real (checks/outcome/__fixtures__/README.md says how each
 * was made).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  evaluatePhaseGates,
  type PhaseStep,
  type ReplayOptions,
  type ReplayStep,
  replayPhaseGates,
} from '../../entries/guards.js';
import { checkPhaseGatesProps } from './phase-gates-props.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../../checks/outcome/__fixtures__/${name}.txt`, import.meta.url), 'utf8');

const sh = (command: string, result?: { exitCode?: number; output?: string }): ReplayStep => ({
  tool: 'bash',
  input: { command },
  ...(result ? { result } : {}),
});
const ok = (output = '') => ({ exitCode: 0, output });
const shell: ReplayOptions = { tools: { bash: 'shell' } };
const at = (verification: ReplayOptions['verification'], extra: Partial<ReplayOptions> = {}) => ({
  ...shell,
  verification,
  ...extra,
});

/** Read, change, then one check: the finish block mode judges. */
const changedThen = (check: ReplayStep): ReplayStep[] => [
  sh('cat src/calc.py', ok('def add(a, b):\n    return a - b\n')),
  sh("sed -i 's/a - b/a + b/' src/calc.py", ok()),
  check,
];

// Each runner: the command an agent types and the fixture of its real output.
const RUNNERS: Array<[string, string, number]> = [
  ['pytest tests/test_calc.py', 'pytest', 1],
  ['pytest -q tests/test_calc.py', 'pytest-q', 1],
  ['python -m unittest tests.test_calc', 'unittest', 1],
  ['npx jest src/calc.test.js', 'jest', 1],
  ['npx vitest run src/calc.test.mjs', 'vitest', 1],
  ['npx mocha test/calc.spec.js', 'mocha', 1],
  ['node --test test/', 'node-test', 1],
  ['npm test', 'npm-test', 1],
  ['pnpm test', 'pnpm-test', 1],
  ['yarn test', 'yarn-test', 1],
  ['go test ./...', 'go', 1],
  ['go test -v ./...', 'go-v', 1],
  ['cargo test', 'cargo', 101],
  ['mvn -B test', 'maven', 1],
  ['./gradlew test', 'gradle', 1],
  [
    'java -jar junit-platform-console-standalone.jar -cp classes --select-class calc.CalcTest',
    'junit-console',
    1,
  ],
];

describe("verification: 'passed' on each runner's real output", () => {
  for (const [command, file, code] of RUNNERS) {
    it(`${file}: failing output is refused, passing output finishes, with and without exit codes`, () => {
      const failing = fixture(`${file}-failing`);
      const passing = fixture(`${file}-passing`);
      for (const result of [{ output: failing }, { exitCode: code, output: failing }]) {
        const replay = replayPhaseGates(changedThen(sh(command, result)), at('passed'));
        expect(replay.exit.refused).toBe(true);
        expect(replay.exit.missing).toEqual(['verification']);
        expect(replay.exit.reasons.join('\n')).toContain('the checks have not passed yet');
        expect(replay.level).toBe('ran');
        expect(replay.lastCheck?.outcome).toBe('failed');
        // 'ran' (the default) lets a failing check through: it ran.
        expect(replayPhaseGates(changedThen(sh(command, result)), shell).exit.refused).toBe(false);
      }
      for (const result of [{ output: passing }, { exitCode: 0, output: passing }]) {
        const replay = replayPhaseGates(changedThen(sh(command, result)), at('passed'));
        expect(replay.exit.refused).toBe(false);
        expect(replay.lastCheck?.outcome).toBe('passed');
      }
    });
  }

  it('the refusal names the failing check and its summary line', () => {
    const replay = replayPhaseGates(
      changedThen(sh('pytest -q tests/test_calc.py', { output: fixture('pytest-q-failing') })),
      at('passed'),
    );
    expect(replay.exit.reasons).toEqual([
      'Phase gates (refusal 1): verification: the checks have not passed yet: your last check (pytest -q tests/test_calc.py, step 3) failed: "1 failed, 1 passed in 0.91s". Fix the failures and run the checks again until they pass (with bash (the tests, e.g. pytest, npm test, go test, or the script that reproduces the issue))',
    ]);
    expect(replay.lastCheck).toEqual({
      step: 2,
      label: 'pytest -q tests/test_calc.py',
      program: 'pytest',
      kind: 'project-tests',
      outcome: 'failed',
      summary: '1 failed, 1 passed in 0.91s',
    });
  });

  it("a check piped into tail is judged by its summary, not the pipe's exit code", () => {
    const piped = sh('pytest tests/ 2>&1 | tail -n 5', {
      exitCode: 0,
      output: fixture('pytest-failing'),
    });
    const replay = replayPhaseGates(changedThen(piped), at('passed'));
    expect(replay.exit.refused).toBe(true);
    expect(replay.lastCheck).toMatchObject({
      outcome: 'failed',
      summary: '========================= 1 failed, 1 passed in 1.19s ==========================',
    });
    expect(replay.lastCheck?.exitCode).toBeUndefined();
    // `; echo done` and `|| true` hide the exit code just the same; `&& echo ok` does not.
    const hidden = replayPhaseGates(
      changedThen(
        sh('pytest tests/ || true', { exitCode: 0, output: fixture('pytest-q-failing') }),
      ),
      at('passed'),
    );
    expect(hidden.exit.refused).toBe(true);
    const reported = replayPhaseGates(
      changedThen(sh('pytest tests/ && echo ok', { exitCode: 1, output: 'collected 2 items' })),
      at('passed'),
    );
    expect(reported.lastCheck).toMatchObject({ outcome: 'failed', exitCode: 1 });
  });

  it("a check's output cannot talk its way past a failing exit code", () => {
    const replay = replayPhaseGates(
      changedThen(
        sh('pytest tests/', {
          exitCode: 2,
          output: '===== 40 passed in 0.1s =====\nBUILD SUCCESS',
        }),
      ),
      at('passed'),
    );
    expect(replay.exit.refused).toBe(true);
    expect(replay.lastCheck?.summary).toBeUndefined();
  });

  it('the last check counts: a failure after a pass without a change reopens verification', () => {
    const steps = [
      ...changedThen(sh('pytest tests/test_calc.py', ok(fixture('pytest-passing')))),
      sh('pytest tests/', { exitCode: 1, output: fixture('pytest-failing') }),
    ];
    expect(replayPhaseGates(steps, at('passed')).exit.refused).toBe(true);
    expect(
      replayPhaseGates([...steps, sh('pytest tests/', ok(fixture('pytest-passing')))], at('passed'))
        .exit.refused,
    ).toBe(false);
  });

  it("a check whose outcome cannot be told does not fail 'passed'", () => {
    const replay = replayPhaseGates(
      changedThen(sh('python repro.py', { output: 'it works' })),
      at('passed'),
    );
    expect(replay.exit.refused).toBe(false);
    expect(replay.lastCheck?.outcome).toBe('unknown');
  });
});

const REPRO = `cat > reproduce_issue.py <<'EOF'
from src.calc import add
assert add(2, 3) == 5
print("ok")
EOF`;

describe("verification: 'project-tests'", () => {
  const withRepro = (...after: ReplayStep[]): ReplayStep[] => [
    sh('cat src/calc.py', ok('def add(a, b):\n    return a - b\n')),
    sh(REPRO, ok()),
    sh('python reproduce_issue.py', { exitCode: 1, output: 'AssertionError' }),
    sh("sed -i 's/a - b/a + b/' src/calc.py", ok()),
    sh('python reproduce_issue.py', ok('ok')),
    ...after,
  ];

  it('an agent-written reproduction script alone never satisfies it, and the refusal says so', () => {
    const replay = replayPhaseGates(withRepro(), at('project-tests'));
    expect(replay.exit.refused).toBe(true);
    expect(replay.exit.reasons.join('\n')).toContain(
      "only your own script ran after your change (python reproduce_issue.py); a script you wrote in this run does not count as the project's tests: run the project's own tests that cover your change to src/calc.py",
    );
    expect(replay.level).toBe('passed');
    expect(replay.lastCheck).toMatchObject({ kind: 'agent-script', outcome: 'passed' });
    expect(replay.lastProjectTests).toBeUndefined();
    // The lower levels let it through.
    expect(replayPhaseGates(withRepro(), at('passed')).exit.refused).toBe(false);
    expect(replayPhaseGates(withRepro(), shell).exit.refused).toBe(false);
  });

  it("the project's tests after the change satisfy it; the script is still reported as the agent's", () => {
    const replay = replayPhaseGates(
      withRepro(
        sh('pytest tests/test_calc.py', ok(fixture('pytest-passing'))),
        sh('rm reproduce_issue.py', ok()),
      ),
      at('project-tests'),
    );
    expect(replay.exit.refused).toBe(false);
    expect(replay.level).toBe('project-tests');
    expect(replay.lastProjectTests).toMatchObject({
      kind: 'project-tests',
      outcome: 'passed',
      program: 'pytest',
      step: 5,
    });
  });

  it("the project's tests before the last change do not count for it", () => {
    const steps = [
      ...withRepro(sh('pytest tests/test_calc.py', ok(fixture('pytest-passing')))),
      sh("sed -i 's/a + b/b + a/' src/calc.py", ok()),
      sh('python reproduce_issue.py', ok('ok')),
    ];
    const replay = replayPhaseGates(steps, at('project-tests'));
    expect(replay.exit.refused).toBe(true);
    expect(replay.exit.reasons.join()).toContain('only your own script ran after your change');
    // They ran once, before the last change: enough for 'project-tests-once' only.
    expect(replay.level).toBe('project-tests-once');
  });

  it('failing project tests are named with their summary line', () => {
    const replay = replayPhaseGates(
      withRepro(
        sh('go test ./...', { exitCode: 1, output: fixture('go-failing') }),
        sh('python reproduce_issue.py', ok('ok')),
      ),
      at('project-tests'),
    );
    expect(replay.exit.refused).toBe(true);
    expect(replay.exit.reasons.join()).toContain(
      'the project\'s tests failed: (go test ./..., step 6) failed: exit code 1, "FAIL\texample.com/calc\t0.007s"',
    );
  });

  it('a test file the agent wrote in this run, run through the runner, is its own script', () => {
    const own = replayPhaseGates(
      [
        sh('cat src/calc.py', ok()),
        sh("sed -i 's/a - b/a + b/' src/calc.py", ok()),
        sh("cat > test_repro.py <<'EOF'\ndef test_add():\n    assert 1\nEOF", ok()),
        sh('pytest test_repro.py', ok(fixture('pytest-passing'))),
      ],
      at('project-tests'),
    );
    expect(own.exit.refused).toBe(true);
    expect(own.lastCheck?.kind).toBe('agent-script');
    // A test added to an existing test file (read before) is the project's suite, grown.
    const grown = replayPhaseGates(
      [
        sh('cat src/calc.py tests/test_calc.py', ok()),
        sh("sed -i 's/a - b/a + b/' src/calc.py", ok()),
        sh("cat >> tests/test_calc.py <<'EOF'\ndef test_more():\n    assert 1\nEOF", ok()),
        sh('python -m pytest tests/test_calc.py::test_more', ok(fixture('pytest-passing'))),
      ],
      at('project-tests'),
    );
    expect(grown.exit.refused).toBe(false);
    // A test module named as a label (`python -m unittest test_fix`) is judged the same way.
    const label = replayPhaseGates(
      [
        sh('cat src/calc.py', ok()),
        sh("sed -i 's/a - b/a + b/' src/calc.py", ok()),
        sh("cat > test_fix.py <<'EOF'\nimport unittest\nEOF", ok()),
        sh('python -m unittest test_fix', ok(fixture('unittest-passing'))),
      ],
      at('project-tests'),
    );
    expect(label.lastCheck?.kind).toBe('agent-script');
  });

  it("inline code, linters and the repository's other scripts are not the project's tests", () => {
    const kindOf = (command: string) =>
      replayPhaseGates(changedThen(sh(command, ok())), at('project-tests')).lastCheck?.kind;
    expect(kindOf('python -c "from src.calc import add; assert add(2, 3) == 5"')).toBe(
      'agent-script',
    );
    expect(kindOf('mypy src')).toBe('other');
    expect(kindOf('python scripts/release.py --dry-run')).toBe('other');
    expect(kindOf('./tests/runtests.py calc')).toBe('project-tests');
    expect(kindOf('python tests/test_calc.py')).toBe('project-tests');
    expect(kindOf('cargo test')).toBe('project-tests');
    expect(kindOf('pnpm --filter core test')).toBe('project-tests');
    const refused = replayPhaseGates(changedThen(sh('mypy src', ok())), at('project-tests'));
    expect(refused.exit.reasons.join()).toContain(
      "the checks after your change (mypy src) were not the project's own tests",
    );
  });

  it('testCommands declares a test command the phase gates do not know', () => {
    const steps = changedThen(sh('./ci/check.sh --fast', ok('all good')));
    expect(replayPhaseGates(steps, at('project-tests')).exit.refused).toBe(true);
    const declared = replayPhaseGates(
      steps,
      at('project-tests', { testCommands: ['./ci/check.sh'] }),
    );
    expect(declared.exit.refused).toBe(false);
    expect(declared.lastProjectTests?.kind).toBe('project-tests');
    expect(
      replayPhaseGates(steps, at('project-tests', { testCommands: [/^\.\/ci\/check\b/] })).exit
        .refused,
    ).toBe(false);
    // A string matches a whole command or its start followed by arguments, never a prefix of a word.
    expect(
      replayPhaseGates(steps, at('project-tests', { testCommands: ['./ci/che'] })).exit.refused,
    ).toBe(true);
  });
});

describe("verification: 'project-tests-once'", () => {
  const fix = [sh('cat src/calc.py', ok('def add(a, b):\n    return a - b\n')), sh(REPRO, ok())];
  const change = sh("sed -i 's/a - b/a + b/' src/calc.py", ok());
  const script = sh('python reproduce_issue.py', ok('ok'));
  const passing = sh('pytest tests/test_calc.py', ok(fixture('pytest-passing')));
  const failing = sh('go test ./...', { exitCode: 1, output: fixture('go-failing') });
  const level = at('project-tests-once');

  it("a run that never ran the project's tests is refused, and told to run them", () => {
    const steps = [...fix, change, script];
    const replay = replayPhaseGates(steps, level);
    expect(replay.exit.refused).toBe(true);
    expect(replay.level).toBe('passed');
    expect(replay.exit.reasons.join()).toContain(
      "verification: the project's own tests have not run in this run (only your own script ran: python reproduce_issue.py; a script you wrote in this run does not count as them): run the project's own tests that cover your change to src/calc.py",
    );
    expect(replayPhaseGates(steps, at('passed')).exit.refused).toBe(false);
  });

  it('tests that ran before the last change count, even failing (the bug, before the fix)', () => {
    for (const before of [passing, failing]) {
      const steps = [...fix, before, change, script];
      const replay = replayPhaseGates(steps, level);
      expect(replay.exit.refused).toBe(false);
      expect(replay.level).toBe('project-tests-once');
      // 'project-tests' still asks for them after the change.
      expect(replayPhaseGates(steps, at('project-tests')).exit.refused).toBe(true);
    }
    const after = replayPhaseGates([...fix, change, passing], level);
    expect(after.exit.refused).toBe(false);
    expect(after.level).toBe('project-tests');
  });

  it('tests that ran after the last change and failed are refused, as at project-tests', () => {
    const replay = replayPhaseGates([...fix, change, failing, script], level);
    expect(replay.exit.refused).toBe(true);
    expect(replay.level).toBe('passed');
    expect(replay.exit.reasons.join()).toContain(
      "the project's tests failed: (go test ./..., step 4) failed: exit code 1",
    );
  });

  it("a failing last check is refused as at 'passed'", () => {
    const broken = sh('python reproduce_issue.py', { exitCode: 1, output: 'AssertionError' });
    const replay = replayPhaseGates([...fix, passing, change, broken], level);
    expect(replay.exit.refused).toBe(true);
    expect(replay.exit.reasons.join()).toContain('the checks have not passed yet');
  });

  it('a test run that could not start is not a run of the tests', () => {
    const notRun = sh('pytest tests/test_calc.py', {
      exitCode: 1,
      output: '/usr/bin/python: No module named pytest',
    });
    expect(replayPhaseGates([...fix, notRun], level).lastAttempt).toMatchObject({
      outcome: 'error',
    });
    const replay = replayPhaseGates([...fix, notRun, change, script], level);
    expect(replay.exit.refused).toBe(true);
    expect(replay.lastProjectTests).toBeUndefined();
  });

  it('is a <PhaseGates> option, and judges step lists too', () => {
    expect(() =>
      checkPhaseGatesProps({ mode: 'block', verification: 'project-tests-once' }),
    ).not.toThrow();
    expect(() =>
      checkPhaseGatesProps({ mode: 'block', verification: 'tests-once' as 'passed' }),
    ).toThrow(/"project-tests-once"/);
    const steps: PhaseStep[] = [
      { tick: 1, toolName: 'read_file', category: 'read', input: { path: 'a.py' } },
      { tick: 2, toolName: 'run_tests', category: 'verify', input: {}, result: { exitCode: 0 } },
      { tick: 3, toolName: 'write_file', category: 'patch', input: { path: 'a.py' } },
      { tick: 4, toolName: 'check', category: 'verify', input: {}, result: { exitCode: 0 } },
    ];
    const options = { verification: 'project-tests-once' } as const;
    // A verify tool runs the project's checks: they ran at tick 2 (and at 4), before the finish.
    expect(evaluatePhaseGates(steps, options).verification).toBe(true);
    expect(evaluatePhaseGates(steps.slice(0, 3), options).verification).toBe(false);
  });
});

describe('the levels through evaluatePhaseGates, and the old names', () => {
  const step = (
    tick: number,
    toolName: string,
    category: PhaseStep['category'],
    input: unknown,
    result?: PhaseStep['result'],
  ): PhaseStep => ({
    tick,
    toolName,
    category,
    input,
    ...(result ? { result } : {}),
  });
  const base = [
    step(1, 'read_file', 'read', { path: 'a.py' }),
    step(2, 'write_file', 'patch', { path: 'a.py' }),
  ];

  it("a tool declared category='verify' runs the project's checks, unless it names a file the run made", () => {
    const tests = [
      ...base,
      step(3, 'run_tests', 'verify', {}, { output: fixture('pytest-q-passing') }),
    ];
    expect(evaluatePhaseGates(tests, { verification: 'project-tests' }).verification).toBe(true);
    const own = [
      ...base,
      step(3, 'write_file', 'patch', { path: 'check_fix.py', content: 'print(1)' }),
      step(4, 'run_tests', 'verify', { path: 'check_fix.py' }, { output: 'ok' }),
    ];
    expect(evaluatePhaseGates(own, { verification: 'project-tests' }).verification).toBe(false);
    expect(evaluatePhaseGates(own, { verification: 'passed' }).verification).toBe(true);
  });

  it("'ran' is the default; 'any' is the seed's rule", () => {
    const failing = [
      ...base,
      step(3, 'run_tests', 'verify', {}, { output: fixture('jest-failing') }),
    ];
    expect(evaluatePhaseGates(failing, { verification: 'passed' }).verification).toBe(false);
    expect(evaluatePhaseGates(failing, { verification: 'ran' }).verification).toBe(true);
    expect(evaluatePhaseGates(failing).verification).toBe(true);
    const before = [
      step(1, 'read_file', 'read', { path: 'a.py' }),
      step(2, 'run_tests', 'verify', {}, { exitCode: 0 }),
      step(3, 'write_file', 'patch', { path: 'a.py' }),
    ];
    expect(evaluatePhaseGates(before, { verification: 'any' }).verification).toBe(true);
    expect(evaluatePhaseGates(before, { verification: 'ran' }).verification).toBe(false);
  });
});
