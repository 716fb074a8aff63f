/**
 * Acceptance tests for issue 14, written from the issue's words against the public API only,
 * on command shapes of agents other than mini-swe-agent: SWE-agent (its `open`/`edit`/`create`
 * commands and `str_replace_editor`), OpenHands (`cd /workspace/repo && …`) and Claude-Code-like
 * agents (`sed -n`, `rg`, heredoc patch scripts, many test runners).
 */
import { describe, expect, it } from 'vitest';
import {
  classifyShellCommand,
  type ReplayStep,
  replayPhaseGates,
  verificationRan,
} from '../../entries/guards.js';

/** `category:op[paths]` per part (`?` marks unknown targets). */
const shape = (command: string) =>
  classifyShellCommand(command).map(
    (p) =>
      `${p.category}:${p.op}${p.unknownTargets ? '?' : ''}${p.paths.length ? `[${p.paths.join(',')}]` : ''}`,
  );
const categories = (command: string) => classifyShellCommand(command).map((p) => p.category);

const ok = (output = '') => ({ exitCode: 0, output });
const sh = (command: string, result = ok()): ReplayStep => ({
  tool: 'bash',
  input: { command },
  result,
});
const shell = { tools: { bash: 'shell' as const } };

describe('classifyShellCommand on SWE-agent commands', () => {
  it('open / goto / scroll read, search_dir / find_file search, create writes', () => {
    expect(shape('open src/x.py')).toEqual(['read:read[src/x.py]']);
    expect(shape('open src/x.py 120')).toEqual(['read:read[src/x.py]']);
    expect(categories('scroll_down')).toEqual(['read']);
    expect(categories('goto 200')).toEqual(['read']);
    expect(categories('search_dir "def foo" src')).toEqual(['search']);
    expect(categories('search_file "foo" src/x.py')).toEqual(['search']);
    expect(categories('find_file x.py')).toEqual(['search']);
    expect(shape('create reproduce.py')).toEqual(['patch:write[reproduce.py]']);
  });

  it('an edit without an open file is a change with unknown targets; its text is not commands', () => {
    expect(shape('edit 12:14')).toEqual(['patch:edit?']);
    // The replacement text would classify as `rm` and `pytest` if it were read as commands.
    expect(shape('edit 12:14\n    rm -rf build\n    pytest = True\nend_of_edit')).toEqual([
      'patch:edit?',
    ]);
  });

  it('str_replace_editor as a shell command', () => {
    expect(shape('str_replace_editor view /repo/src/x.py')).toEqual(['read:read[/repo/src/x.py]']);
    expect(shape('str_replace_editor str_replace /repo/src/x.py --old_str a --new_str b')).toEqual([
      'patch:edit[/repo/src/x.py]',
    ]);
    expect(shape("str_replace_editor create /repo/reproduce.py --file_text 'print(1)'")).toEqual([
      'patch:write[/repo/reproduce.py]',
    ]);
  });

  it('running the script it wrote verifies', () => {
    expect(shape('python reproduce.py')).toEqual(['verify:run[reproduce.py]']);
    expect(shape('python3 reproduce.py && rm reproduce.py')).toEqual([
      'verify:run[reproduce.py]',
      'patch:delete[reproduce.py]',
    ]);
  });
});

describe('classifyShellCommand on OpenHands and Claude-Code-like commands', () => {
  it('cd into the repo, then test or look at the diff', () => {
    expect(categories('cd /workspace/repo && python -m pytest tests/test_x.py -q')).toEqual([
      'verify',
    ]);
    expect(categories('cd /workspace/repo && git diff')).toEqual(['discovery']);
    expect(shape('cd /workspace/repo && sed -i "s/a/b/" src/x.py')).toEqual([
      'patch:edit[/workspace/repo/src/x.py]',
    ]);
  });

  it('reads and searches', () => {
    expect(shape("sed -n '1,80p' src/x.py")).toEqual(['read:read[src/x.py]']);
    expect(shape('rg -n "foo" src')).toEqual(['search:search[src]']);
    expect(categories('grep -rn foo . --include=*.py | head -20')).toEqual(['search', 'read']);
    expect(shape('head -100 src/x.py | tail -20')).toEqual(['read:read[src/x.py]', 'read:read']);
  });

  it('test runners of every ecosystem verify, piped output included', () => {
    for (const command of [
      'npx jest src/x.test.js',
      'go test ./...',
      'cargo test -q',
      'mvn -q test',
      './gradlew test',
      'gradle test',
      'mvn test -Dtest=FooTest',
      'python -m pytest',
      'py.test tests',
      'tox -e py39',
      'python runtests.py admin_views',
      './runtests.py admin_views',
      'make test',
      'npm test -- --runInBand',
      'npm run test',
      'yarn jest x',
      'pnpm vitest run x',
      'npx tsc --noEmit',
      'mypy src',
      'ruff check .',
      'python -m unittest tests.test_x',
      'dotnet test',
      'bundle exec rspec spec/x_spec.rb',
      'coverage run -m pytest tests',
      'poetry run pytest -q',
      'cd repo; pytest tests/test_a.py::test_b -xvs',
      '(cd sub && pytest)',
      "bash -c 'pytest -q'",
      'timeout 300 python -m pytest -q',
    ]) {
      expect(categories(command), command).toContain('verify');
      expect(categories(command), command).not.toContain('patch');
    }
    expect(categories('pytest -x 2>&1 | tail -20')).toEqual(['verify', 'read']);
  });

  it('inline code that only prints verifies; inline code that opens a file for writing changes it', () => {
    expect(shape('python -c "import x; print(x.f(1))"')).toEqual(['verify:run']);
    expect(shape(`python -c "open('src/x.py','w').write('')"`)).toEqual(['patch:write[src/x.py]']);
    expect(
      shape(
        "python - <<'EOF'\nimport pathlib\np = pathlib.Path('src/x.py')\np.write_text(p.read_text().replace('a', 'b'))\nEOF",
      ),
    ).toEqual(['patch:edit[src/x.py]']);
  });

  it('a heredoc patch script written to /tmp and run: the run changes files (unknown targets)', () => {
    const command = `cat > /tmp/patch.py << 'EOF'
import re
p = 'src/x.py'
s = open(p).read()
open(p, 'w').write(s.replace('a', 'b'))
EOF
python /tmp/patch.py`;
    const parts = classifyShellCommand(command);
    expect(parts[0]).toMatchObject({ category: 'patch', op: 'write', paths: ['/tmp/patch.py'] });
    expect(parts[1]).toMatchObject({ category: 'patch' });
    expect(parts).toHaveLength(2);
    // The same, chained with `&&` on the heredoc's first line (a line `EOF && …` would not end
    // the heredoc in bash, so agents put the `&&` before the body).
    const chained = `cat > /tmp/patch.py << 'EOF' && python /tmp/patch.py
p = 'src/x.py'
s = open(p).read()
open(p, 'w').write(s.replace('a', 'b'))
EOF`;
    expect(categories(chained)).toEqual(['patch', 'patch']);
    expect(classifyShellCommand(chained)[0]!.paths).toEqual(['/tmp/patch.py']);
  });

  it('file operations name their targets, flags included', () => {
    expect(shape("perl -0pi -e 's/a/b/' f.py")).toEqual(['patch:edit[f.py]']);
    expect(shape('git apply fix.patch')).toEqual(['patch:edit?']);
    expect(shape('git checkout -- src/x.py')).toEqual(['patch:restore[src/x.py]']);
    expect(shape('mv x.py.bak x.py')).toEqual(['patch:move[x.py.bak,x.py]']);
    expect(shape('mv -f x.py.bak x.py')).toEqual(['patch:move[x.py.bak,x.py]']);
    expect(shape('rm -f reproduce.py')).toEqual(['patch:delete[reproduce.py]']);
    expect(shape('rm -rf build tmp_dir')).toEqual(['patch:delete[build,tmp_dir]']);
    expect(shape('cp -f src/x.py src/x.py.orig')).toEqual(['patch:copy[src/x.py.orig]']);
    expect(shape('touch src/new.py')).toEqual(['patch:write[src/new.py]']);
    expect(shape('mkdir -p src/pkg')).toEqual(['patch:write[src/pkg]']);
    expect(shape('echo hi | tee src/a.txt')).toEqual(['other:other', 'patch:write[src/a.txt]']);
    expect(shape('echo hi | tee -a src/a.txt')).toEqual(['other:other', 'patch:write[src/a.txt]']);
    expect(shape("echo 'x = 1' >> src/a.py")).toEqual(['other:other', 'patch:write[src/a.py]']);
    expect(shape("printf 'a\\nb\\n' > src/f.txt")).toEqual([
      'other:other',
      'patch:write[src/f.txt]',
    ]);
    expect(shape("cat <<'EOF' > src/x.py\nprint(1)\nEOF")).toEqual(['patch:write[src/x.py]']);
  });

  it('runners behind global options and wrappers still verify', () => {
    for (const command of [
      'npm --prefix web test',
      'pnpm -F core test',
      'pnpm --filter @app/core run test',
      'yarn --cwd packages/a test',
      'xvfb-run -a pytest tests/gui',
      'rake test',
      'bundle exec rake spec',
      'composer test',
    ])
      expect(categories(command), command).toEqual(['verify']);
  });

  it('build tool goals that neither compile nor test are not verifications', () => {
    for (const command of [
      'mvn dependency:tree',
      'mvn -q help:evaluate -Dexpression=project.version',
      'mvn -v',
      './gradlew dependencies',
      'gradle tasks --all',
      'javac -version',
    ])
      expect(categories(command), command).toEqual(['other']);
    expect(categories('mvn clean test')).toEqual(['verify']);
    expect(categories('mvn -q compile')).toEqual(['verify']);
    expect(categories('./gradlew clean build')).toEqual(['verify']);
  });

  it('git add, echo and pip install are other', () => {
    expect(categories('git add -A')).toEqual(['other']);
    expect(categories('echo done')).toEqual(['other']);
    expect(categories('pip install -e .')).toEqual(['other']);
  });
});

describe('verificationRan', () => {
  it('126/127 and not-found outputs are verifications that never ran; failing tests ran', () => {
    expect(verificationRan({ exitCode: 127, output: '' })).toBe(false);
    expect(verificationRan({ exitCode: 126, output: '' })).toBe(false);
    expect(verificationRan({ exitCode: 1, output: 'bash: line 1: mvn: command not found' })).toBe(
      false,
    );
    expect(
      verificationRan({
        exitCode: 2,
        output: "python: can't open file '/repo/reproduce.py': [Errno 2] No such file or directory",
      }),
    ).toBe(false);
    expect(
      verificationRan({ exitCode: 1, output: 'bash: ./gradlew: No such file or directory' }),
    ).toBe(false);
    expect(verificationRan({ exitCode: 1, output: '3 failed, 10 passed in 1.2s' })).toBe(true);
    expect(verificationRan({ exitCode: 0, output: 'ok' })).toBe(true);
  });
});

describe('replayPhaseGates on whole short runs of other agents', () => {
  it('SWE-agent: create and run a reproduction, edit the open file, rerun, delete the script: not refused', () => {
    const steps: ReplayStep[] = [
      { tool: 'bash', input: { command: 'search_dir "separability" astropy' }, result: ok() },
      { tool: 'bash', input: { command: 'open astropy/modeling/separable.py 240' }, result: ok() },
      { tool: 'bash', input: { command: 'create reproduce.py' }, result: ok() },
      {
        tool: 'bash',
        input: { command: 'edit 1:1\nfrom astropy.modeling import models\nprint(1)\nend_of_edit' },
        result: ok(),
      },
      sh('python reproduce.py', { exitCode: 1, output: 'AssertionError' }),
      sh('open astropy/modeling/separable.py 242'),
      sh('edit 242:242\n        cright[-right.shape[0]:, -right.shape[1]:] = right\nend_of_edit'),
      sh('python reproduce.py', ok('[[ True False]\n [False  True]]')),
      sh('rm reproduce.py'),
      { tool: 'submit', input: {} },
    ];
    const replay = replayPhaseGates(steps, {
      tools: { bash: 'shell', submit: 'other' },
      workProduct: ['astropy/modeling/separable.py'],
    });
    expect(replay.exit).toEqual({ refused: false, missing: [], reasons: [] });
    expect(replay.unverified).toEqual([]);
    expect(replay.phases).toEqual({ understanding: true, change: true, verification: true });
    // And from the calls alone.
    const callsOnly = replayPhaseGates(steps, { tools: { bash: 'shell', submit: 'other' } });
    expect(callsOnly.exit.refused).toBe(false);
  });

  it('SWE-agent: an edit of the source after the last reproduction run is refused', () => {
    const steps: ReplayStep[] = [
      sh('find_file separable.py'),
      sh('open astropy/modeling/separable.py'),
      sh('edit 242:242\n        cright = right\nend_of_edit'),
      sh('python reproduce.py', ok('fixed')),
      sh('open astropy/modeling/separable.py'),
      sh('edit 10:10\n# cleanup\nend_of_edit'),
    ];
    const replay = replayPhaseGates(steps, shell);
    expect(replay.exit.refused).toBe(true);
    expect(replay.exit.missing).toEqual(['verification']);
    expect(replay.unverified).toEqual(['astropy/modeling/separable.py']);
  });

  it('OpenHands: test, fix, test again, git diff: not refused', () => {
    const steps: ReplayStep[] = [
      sh('cd /workspace/repo && grep -rn "def parse" src/'),
      sh("cd /workspace/repo && sed -n '1,60p' src/parser.py"),
      sh('cd /workspace/repo && python -m pytest tests/test_parser.py -q', {
        exitCode: 1,
        output: '1 failed, 4 passed',
      }),
      sh("cd /workspace/repo && sed -i 's/strip()/rstrip()/' src/parser.py"),
      sh('cd /workspace/repo && python -m pytest tests/test_parser.py -q', ok('5 passed')),
      sh('cd /workspace/repo && git diff'),
    ];
    const replay = replayPhaseGates(steps, {
      ...shell,
      workProduct: ['/workspace/repo/src/parser.py'],
    });
    expect(replay.exit.refused).toBe(false);
    expect(replayPhaseGates(steps, shell).exit.refused).toBe(false);
  });

  it('OpenHands: a late str_replace_editor edit is refused, and only execute_bash is offered to verify it', () => {
    const view = { command: 'view', path: '/workspace/repo/src/p.py' };
    const replace = {
      command: 'str_replace',
      path: '/workspace/repo/src/p.py',
      old_str: 'a',
      new_str: 'b',
    };
    const steps: ReplayStep[] = [
      {
        tool: 'execute_bash',
        input: { command: 'cd /workspace/repo && grep -rn parse src' },
        result: ok(),
      },
      { tool: 'str_replace_editor', input: view, result: ok() },
      { tool: 'str_replace_editor', input: replace, result: ok() },
      {
        tool: 'execute_bash',
        input: { command: 'cd /workspace/repo && python -m pytest -q' },
        result: ok('5 passed'),
      },
      {
        tool: 'str_replace_editor',
        input: { ...replace, old_str: 'b', new_str: 'c' },
        result: ok(),
      },
    ];
    const replay = replayPhaseGates(steps, {
      tools: { execute_bash: 'shell', str_replace_editor: 'shell' },
      workProduct: ['src/p.py'],
    });
    expect(replay.exit.refused).toBe(true);
    expect(replay.unverified).toEqual(['/workspace/repo/src/p.py']);
    const reason = replay.exit.reasons.join('\n');
    expect(reason).toContain('execute_bash (the tests');
    // The editor runs nothing: it is not offered as a way to run tests.
    expect(reason).not.toContain('str_replace_editor');
  });

  it('a good run that deletes its scratch script after testing (rm -f) is not refused', () => {
    const steps: ReplayStep[] = [
      sh('rg -n "def add" src'),
      sh("sed -n '1,40p' src/calc.py"),
      sh("cat > repro_add.py <<'EOF'\nfrom src.calc import add\nassert add(2, 3) == 5\nEOF"),
      sh('python repro_add.py', { exitCode: 1, output: 'AssertionError' }),
      sh("perl -0pi -e 's/a - b/a + b/' src/calc.py"),
      sh('python repro_add.py && pytest -x 2>&1 | tail -20', ok('12 passed')),
      sh('rm -f repro_add.py'),
    ];
    expect(replayPhaseGates(steps, { ...shell, workProduct: ['src/calc.py'] }).exit.refused).toBe(
      false,
    );
    const callsOnly = replayPhaseGates(steps, shell);
    expect(callsOnly.exit.refused).toBe(false);
    expect(callsOnly.unverified).toEqual([]);
  });

  it('a run whose last sed -i follows the last test is refused, naming the file', () => {
    const steps: ReplayStep[] = [
      sh('rg -n "debug" lib'),
      sh("sed -n '1,80p' lib/core.py"),
      sh("sed -i 's/return x/return x + 1/' lib/core.py"),
      sh('python -m pytest -q tests/test_core.py', ok('8 passed')),
      sh("sed -i '/print(\"DEBUG/d' lib/core.py"),
    ];
    for (const replay of [
      replayPhaseGates(steps, { ...shell, workProduct: ['lib/core.py'] }),
      replayPhaseGates(steps, shell),
    ]) {
      expect(replay.exit.refused).toBe(true);
      expect(replay.exit.missing).toEqual(['verification']);
      expect(replay.unverified).toEqual(['lib/core.py']);
      expect(replay.exit.reasons.join('\n')).toContain('lib/core.py');
      expect(replay.exit.reasons.join('\n')).toContain('bash');
    }
  });

  it('a heredoc patch script applied after the last test is refused', () => {
    const steps: ReplayStep[] = [
      sh('grep -rn "TIMEOUT" pkg'),
      sh('cat pkg/net.go'),
      sh("sed -i 's/30/60/' pkg/net.go"),
      sh('go test ./...', ok('ok  \texample.com/pkg\t0.01s')),
      sh(
        "cat > /tmp/patch.py << 'EOF'\np = 'pkg/net.go'\ns = open(p).read()\nopen(p, 'w').write(s.replace('60', '90'))\nEOF\npython /tmp/patch.py",
      ),
    ];
    const replay = replayPhaseGates(steps, shell);
    expect(replay.exit.refused).toBe(true);
    expect(replay.exit.missing).toContain('verification');
  });

  it('a .bak moved back over the source after the tests is refused', () => {
    const steps: ReplayStep[] = [
      sh('cat src/colors.py'),
      sh('cp src/colors.py src/colors.py.bak'),
      sh("sed -i 's/RED/CRIMSON/' src/colors.py"),
      sh('pytest tests/test_colors.py', ok('3 passed')),
      sh('mv src/colors.py.bak src/colors.py'),
    ];
    const replay = replayPhaseGates(steps, { ...shell, workProduct: ['src/colors.py'] });
    expect(replay.exit.refused).toBe(true);
    expect(replay.unverified).toEqual(['src/colors.py']);
  });

  it('git checkout -- f puts the file back: nothing left to verify, but no change either', () => {
    const steps: ReplayStep[] = [
      sh('cat src/x.py'),
      sh('pytest -q', ok('1 passed')),
      sh("sed -i 's/a/b/' src/x.py"),
      sh('git checkout -- src/x.py'),
    ];
    const replay = replayPhaseGates(steps, shell);
    expect(replay.unverified).toEqual([]);
    expect(replay.phases.change).toBe(false);
    expect(replay.exit.missing).toEqual(['change', 'verification']);
  });

  it('a run whose tests never ran (command not found) is refused, and the message says so', () => {
    const notFound = { exitCode: 127, output: 'bash: line 1: mvn: command not found' };
    const steps: ReplayStep[] = [
      sh('grep -rn "parseDate" src/main/java'),
      sh("sed -n '1,120p' src/main/java/org/x/DateUtil.java"),
      sh("sed -i 's/yyyy/uuuu/' src/main/java/org/x/DateUtil.java"),
      sh('mvn -q test -Dtest=DateUtilTest', notFound),
      sh('./gradlew test', {
        exitCode: 127,
        output: 'bash: line 1: ./gradlew: No such file or directory',
      }),
    ];
    const replay = replayPhaseGates(steps, {
      ...shell,
      workProduct: ['src/main/java/org/x/DateUtil.java'],
    });
    expect(replay.exit.refused).toBe(true);
    expect(replay.exit.missing).toEqual(['verification']);
    expect(replay.unverified).toEqual(['src/main/java/org/x/DateUtil.java']);
    expect(replay.exit.reasons.join('\n')).toMatch(/did not run|not found/);
  });

  it("failing tests still ran; verification 'passed' asks for a passing run", () => {
    const steps: ReplayStep[] = [
      sh('cat src/lib.rs'),
      sh("sed -i 's/a - b/a + b/' src/lib.rs"),
      sh('cargo test -q', { exitCode: 101, output: 'test result: FAILED. 1 passed; 1 failed' }),
    ];
    expect(replayPhaseGates(steps, shell).exit.refused).toBe(false);
    const strict = replayPhaseGates(steps, { ...shell, verification: 'passed' });
    expect(strict.exit.refused).toBe(true);
    expect(strict.exit.missing).toEqual(['verification']);
    const passing = replayPhaseGates([...steps, sh('cargo test -q', ok('test result: ok'))], {
      ...shell,
      verification: 'passed',
    });
    expect(passing.exit.refused).toBe(false);
  });

  it('scratch files under /tmp, and created-then-deleted files, never need verifying', () => {
    const steps: ReplayStep[] = [
      sh('cat src/a.js'),
      sh("sed -i 's/==/===/' src/a.js"),
      sh('npx jest src/a.test.js', ok('Tests: 2 passed')),
      sh("printf 'x' > /tmp/notes.txt"),
      sh('touch scratch.txt && echo hi >> scratch.txt'),
      sh('rm -f scratch.txt'),
    ];
    const replay = replayPhaseGates(steps, shell);
    expect(replay.exit.refused).toBe(false);
    expect(replay.unverified).toEqual([]);
  });

  it('the stall warning comes after stallAfter steps with neither a change nor a verification', () => {
    const steps: ReplayStep[] = [
      sh('cat src/a.py'),
      sh("sed -i 's/x/y/' src/a.py"),
      sh('cat src/b.py'),
      sh('rg -n y src'),
      sh('ls src'),
      sh('git status'),
      sh("sed -n '1,20p' src/c.py"),
      sh('cat src/d.py'),
    ];
    const replay = replayPhaseGates(steps, { ...shell, stallAfter: 4 });
    const stalls = replay.warnings.filter((w) => w.kind === 'stall');
    expect(stalls.length).toBeGreaterThanOrEqual(1);
    expect(stalls[0]!.step).toBe(5);
    expect(stalls[0]!.text).toMatch(/^WARNING/);
    expect(stalls[0]!.text).toContain('bash');
  });

  it('every warning begins with WARNING or CRITICAL, at most 4 over any 10 steps', () => {
    const steps: ReplayStep[] = Array.from({ length: 40 }, (_, i) =>
      i === 3 ? sh("sed -i 's/x/y/' src/a.py") : sh(i % 2 ? 'ls' : 'git status'),
    );
    const replay = replayPhaseGates(steps, { ...shell, warnEvery: 1, stallAfter: 1 });
    expect(replay.warnings.length).toBeGreaterThan(0);
    for (const w of replay.warnings) expect(w.text).toMatch(/^(?:WARNING|CRITICAL)/);
    for (let start = 0; start < steps.length; start++) {
      const inWindow = replay.warnings.filter((w) => w.step >= start && w.step < start + 10);
      expect(inWindow.length).toBeLessThanOrEqual(4);
    }
  });

  it('returns the exact shape the issue names', () => {
    const replay = replayPhaseGates([sh('ls')], shell);
    expect(Object.keys(replay).sort()).toEqual(
      // Issue 26 added verdict and unmappedTools, issue 41 level (and lastCheck and
      // lastProjectTests once a check ran); phases stays as it was.
      [
        'exit',
        'level',
        'parts',
        'phases',
        'unmappedTools',
        'unverified',
        'verdict',
        'warnings',
      ].sort(),
    );
    expect(Object.keys(replay.phases).sort()).toEqual(['change', 'understanding', 'verification']);
    expect(Object.keys(replay.exit).sort()).toEqual(['missing', 'reasons', 'refused']);
    expect(replay.parts).toEqual([
      [{ category: 'discovery', op: 'list', paths: [], program: 'ls' }],
    ]);
  });
});

describe('a test run that found no tests verified nothing', () => {
  const noTests: Array<[string, string, number]> = [
    ['pytest -k nothing', '============ 10 deselected in 0.12s ============', 5],
    ['python -m pytest tests/x.py', '============ no tests ran in 0.01s ============', 5],
    [
      'python -m unittest tests.test_x',
      '\n----------------------------------------------------------------------\nRan 0 tests in 0.000s\n\nNO TESTS RAN',
      5,
    ],
    [
      'npx jest src/a.test.js',
      'No tests found, exiting with code 1\nRun with `--passWithNoTests` to exit with code 0',
      1,
    ],
    ['npx vitest run src/a', 'No test files found, exiting with code 1', 1],
    ['mvn -q test -Dtest=FooTest', '[ERROR] Failed to execute goal: No tests were executed!', 1],
    [
      './gradlew test --tests FooTest',
      "Execution failed for task ':test'.\n> No tests found for given includes: [FooTest]",
      1,
    ],
    [
      'go test ./pkg/...',
      '?   \texample.com/pkg/a\t[no test files]\n?   \texample.com/pkg/b\t[no test files]',
      0,
    ],
  ];
  it.each(noTests)('%s', (command, output, exitCode) => {
    expect(verificationRan({ exitCode, output })).toBe(false);
    const replay = replayPhaseGates(
      [sh('cat src/a.py'), sh("sed -i 's/a/b/' src/a.py"), sh(command, { exitCode, output })],
      shell,
    );
    expect(replay.exit.missing).toEqual(['verification']);
    expect(replay.exit.reasons.join('\n')).toContain('found no tests');
  });

  it('tests that ran, passing or failing, still count', () => {
    for (const output of [
      '============ 3 passed, 2 deselected in 0.12s ============',
      '============ 1 failed, 3 passed in 0.40s ============',
      'Ran 4 tests in 0.010s\n\nOK',
      '?   \texample.com/pkg/a\t[no test files]\nok  \texample.com/pkg/b\t0.01s',
      '?   \texample.com/pkg/a\t[no test files]\n--- FAIL: TestB (0.00s)\nFAIL\texample.com/pkg/b',
      'Tests:       1 failed, 4 passed, 5 total',
    ])
      expect(verificationRan({ exitCode: 1, output }), output).toBe(true);
  });
});
