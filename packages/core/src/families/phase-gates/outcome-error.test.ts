/**
 * Issue 47, item 2: a check that could not run (`'error'`) verifies nothing at any level and
 * the refusal says why; a file the agent made with any editor tool is never the project's
 * tests. Replayed through `replayPhaseGates`, as the bench does.
 */
import { describe, expect, it } from 'vitest';
import { type ReplayOptions, type ReplayStep, replayPhaseGates } from '../../entries/guards.js';

const sh = (command: string, result?: { exitCode?: number; output?: string }): ReplayStep => ({
  tool: 'bash',
  input: { command },
  ...(result ? { result } : {}),
});
const ok = (output = '') => ({ exitCode: 0, output });
const fix = [
  sh('cat src/main/java/Calc.java', ok('class Calc { int add(int a, int b) { return a - b; } }')),
  sh("sed -i 's/a - b/a + b/' src/main/java/Calc.java", ok()),
];

describe("a check that could not run is 'error': no verification at any level", () => {
  const notRun: Array<[string, ReplayStep, RegExp]> = [
    [
      './mvnw test without a JDK',
      sh('./mvnw test', { exitCode: 1, output: 'Error: JAVA_HOME is not defined correctly.\n' }),
      /no Java runtime was found/,
    ],
    [
      'mvn missing',
      sh('mvn test', { exitCode: 127, output: 'bash: mvn: command not found\n' }),
      /the command was not found/,
    ],
    [
      'java missing (sh)',
      sh('./gradlew test', { output: '/bin/sh: 1: java: not found\n' }),
      /the command was not found/,
    ],
    [
      'pytest not installed',
      sh('python -m pytest tests', {
        exitCode: 1,
        output: '/usr/bin/python: No module named pytest\n',
      }),
      /the module is not installed/,
    ],
    [
      'the runner is not executable',
      sh('./gradlew test', { exitCode: 126, output: 'bash: ./gradlew: Permission denied\n' }),
      /could not be executed/,
    ],
  ];
  for (const [name, check, why] of notRun)
    it(name, () => {
      for (const verification of ['ran', 'passed', 'project-tests'] as const) {
        const replay = replayPhaseGates([...fix, check], {
          tools: { bash: 'shell' },
          verification,
        });
        expect(replay.level).toBe('none');
        expect(replay.exit.refused).toBe(true);
        expect(replay.lastCheck).toBeUndefined();
        expect(replay.lastAttempt).toMatchObject({ outcome: 'error', step: 2 });
        expect(replay.lastAttempt?.why).toMatch(why);
        const text = replay.exit.reasons.join('\n');
        expect(text).toContain('did not run');
        expect(text).toMatch(why);
      }
    });

  it('a later check that ran counts again; the error stays the last attempt only until then', () => {
    const replay = replayPhaseGates(
      [
        ...fix,
        sh('mvn test', { exitCode: 127, output: 'bash: mvn: command not found\n' }),
        sh(
          './mvnw test',
          ok('[INFO] Tests run: 2, Failures: 0, Errors: 0, Skipped: 0\n[INFO] BUILD SUCCESS'),
        ),
      ],
      { tools: { bash: 'shell' }, verification: 'project-tests' },
    );
    expect(replay.level).toBe('project-tests');
    expect(replay.lastAttempt).toMatchObject({ outcome: 'passed', kind: 'project-tests' });
  });

  it('a traceback at the end with no exit code fails the check: ran, but not passed', () => {
    const options: ReplayOptions = { tools: { bash: 'shell' }, verification: 'passed' };
    const replay = replayPhaseGates(
      [
        ...fix,
        sh('python tests/test_calc.py', {
          output:
            'Traceback (most recent call last):\n  File "tests/test_calc.py", line 3, in <module>\n    assert add(1, 1) == 2\nAssertionError\n',
        }),
      ],
      options,
    );
    expect(replay.level).toBe('ran');
    expect(replay.lastCheck).toMatchObject({ outcome: 'failed', summary: 'AssertionError' });
    expect(replay.exit.refused).toBe(true);
  });
});

describe("a file the agent made, by shell or any editor tool, is never the project's tests", () => {
  const run = sh('python test_calc_fix.py', ok('ok'));
  const made: Array<[string, ReplayStep[], ReplayOptions['tools']]> = [
    [
      'SWE-agent create',
      [sh('create test_calc_fix.py'), sh('edit 1:1\nprint(1)\nend_of_edit')],
      {},
    ],
    [
      'str_replace_editor create (command line)',
      [sh("str_replace_editor create /testbed/test_calc_fix.py --file_text 'print(1)'")],
      {},
    ],
    [
      'str_replace_editor create (tool input)',
      [
        {
          tool: 'str_replace_editor',
          input: { command: 'create', path: '/testbed/test_calc_fix.py', file_text: 'print(1)' },
        },
      ],
      { str_replace_editor: 'shell' },
    ],
    [
      'a create tool that takes only a file name',
      [{ tool: 'create', input: { filename: 'test_calc_fix.py' } }],
      { create: 'patch' },
    ],
    [
      'a create_file tool, as a shell-classified tool',
      [{ tool: 'create_file', input: { path: 'test_calc_fix.py' } }],
      { create_file: 'shell' },
    ],
    [
      'a read that found nothing, then a heredoc',
      [
        sh('cat test_calc_fix.py', {
          exitCode: 1,
          output: 'cat: test_calc_fix.py: No such file or directory',
        }),
        sh("cat > test_calc_fix.py <<'EOF'\nprint(1)\nEOF"),
      ],
      {},
    ],
    [
      'touch, then appends',
      [sh('touch test_calc_fix.py'), sh("echo 'print(1)' >> test_calc_fix.py")],
      {},
    ],
  ];
  for (const [name, steps, tools] of made)
    it(name, () => {
      const replay = replayPhaseGates([...fix, ...steps, run], {
        tools: { bash: 'shell', ...tools },
        verification: 'project-tests',
      });
      expect(replay.lastCheck).toMatchObject({ kind: 'agent-script', outcome: 'passed' });
      expect(replay.level).toBe('passed');
      expect(replay.exit.refused).toBe(true);
    });

  it('an existing test file the agent read, then edited, stays the project’s', () => {
    const replay = replayPhaseGates(
      [
        ...fix,
        sh('cat test_calc.py', ok('from calc import add\nassert add(1, 1) == 2\n')),
        sh("sed -i '$a assert add(2, 2) == 4' test_calc.py"),
        sh('python test_calc.py', ok('')),
      ],
      { tools: { bash: 'shell' }, verification: 'project-tests' },
    );
    expect(replay.lastCheck?.kind).toBe('project-tests');
  });
});
