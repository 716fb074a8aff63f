import { describe, expect, it } from 'vitest';
import { evaluatePhaseGates } from './evaluate-phase-gates.js';
import type { PhaseStep } from './phase-types.js';
import { replayPhaseGates } from './replay-phase-gates.js';

let tick = 0;
const step = (
  toolName: string,
  category: PhaseStep['category'],
  input: unknown = {},
  result?: PhaseStep['result'],
): PhaseStep => ({
  tick: ++tick,
  toolName,
  category,
  input,
  ...(result ? { result } : {}),
});
const search = () => step('rg_search', 'search', { pattern: 'bug' });
const read = (path?: string) => step('read_file', 'read', path ? { path } : {});
const patch = (path?: string) => step('propose_patch', 'patch', path ? { path, content: 'x' } : {});
const verify = (result?: PhaseStep['result']) => step('run_tests', 'verify', {}, result);
const list = () => step('list_files', 'discovery');
const sh = (command: string, result: PhaseStep['result'] = { exitCode: 0, output: '' }) =>
  step('bash', 'shell', { command }, result);

describe('evaluatePhaseGates', () => {
  it('starts with nothing, and counts ticks as steps', () => {
    const status = evaluatePhaseGates([]);
    expect(status).toEqual({
      understanding: false,
      change: false,
      verification: false,
      readiness: false,
      evidence: {
        filesRead: 0,
        searchUsed: false,
        patchesProposed: 0,
        verifyUsed: false,
        noProgressYet: false,
        stepsTaken: 0,
      },
    });
    expect(evaluatePhaseGates([list(), list(), list()]).evidence.stepsTaken).toBe(3);
  });

  it('no progress: two calls or more, none of them search, read, patch or verify', () => {
    expect(evaluatePhaseGates([list()]).evidence.noProgressYet).toBe(false);
    expect(evaluatePhaseGates([list(), list()]).evidence.noProgressYet).toBe(true);
    expect(evaluatePhaseGates([list(), list(), search()]).evidence.noProgressYet).toBe(false);
    expect(
      evaluatePhaseGates([step('x', 'other'), step('y', 'other')]).evidence.noProgressYet,
    ).toBe(true);
  });

  it('understanding: a read and (a search or a patch)', () => {
    expect(evaluatePhaseGates([read('a.py')]).understanding).toBe(false);
    expect(evaluatePhaseGates([search(), read('a.py')]).understanding).toBe(true);
    expect(evaluatePhaseGates([read('a.py'), patch('a.py')]).understanding).toBe(true);
    expect(evaluatePhaseGates([search(), patch('a.py')]).understanding).toBe(false);
  });

  it('filesRead: distinct paths, or one per call without a path', () => {
    expect(evaluatePhaseGates([read('a.py'), read('a.py'), read('b.py')]).evidence.filesRead).toBe(
      2,
    );
    expect(evaluatePhaseGates([read(), read()]).evidence.filesRead).toBe(2);
  });

  it('change: a patch; patchesProposed counts patch calls', () => {
    const status = evaluatePhaseGates([patch('a.py'), patch('a.py'), patch()]);
    expect(status.change).toBe(true);
    expect(status.evidence.patchesProposed).toBe(3);
  });

  it('verification: a verify after the last patch; a test run before the change verifies nothing', () => {
    expect(evaluatePhaseGates([search(), read('a.py'), patch('a.py'), verify()]).readiness).toBe(
      true,
    );
    const before = evaluatePhaseGates([search(), read('a.py'), verify(), patch('a.py')]);
    expect(before.verification).toBe(false);
    expect(before.evidence.verifyUsed).toBe(true);
    expect(evaluatePhaseGates([patch('a.py'), verify(), patch('b.py')]).verification).toBe(false);
    expect(
      evaluatePhaseGates([patch('a.py'), verify(), patch('b.py'), verify()]).verification,
    ).toBe(true);
  });

  it("verification: 'any' restores the seed's rule", () => {
    expect(
      evaluatePhaseGates([verify(), patch('a.py')], { verification: 'any' }).verification,
    ).toBe(true);
    expect(evaluatePhaseGates([patch('a.py')], { verification: 'any' }).verification).toBe(false);
  });

  it('only verifications that ran count', () => {
    const notRun = evaluatePhaseGates([
      patch('a.py'),
      verify({ exitCode: 127, output: 'pytest: command not found' }),
    ]);
    expect(notRun.verification).toBe(false);
    expect(notRun.evidence.verifyUsed).toBe(false);
    expect(
      evaluatePhaseGates([patch('a.py'), verify({ exitCode: 1, output: '2 failed' })]).verification,
    ).toBe(true);
  });

  it("verification 'passed': only a passing run (exit code 0) verifies", () => {
    const failing = [patch('a.py'), verify({ exitCode: 1, output: '2 failed' })];
    expect(evaluatePhaseGates(failing, { verification: 'passed' }).verification).toBe(false);
    expect(
      evaluatePhaseGates([...failing, verify({ exitCode: 0, output: 'ok' })], {
        verification: 'passed',
      }).verification,
    ).toBe(true);
  });

  it('a shell tool is classified per call', () => {
    const status = evaluatePhaseGates([
      sh('grep -rn add src'),
      sh('cat src/math.js'),
      sh("sed -i 's/-/+/' src/math.js && node test.js"),
    ]);
    expect(status.readiness).toBe(true);
    expect(status.evidence).toMatchObject({
      filesRead: 1,
      searchUsed: true,
      patchesProposed: 1,
      verifyUsed: true,
    });
  });

  it('a function category gives the ordered parts of one call', () => {
    const steps = [
      step('edit_and_test', ['patch', 'verify'], { path: 'a.py' }),
      step('look', ['search', 'read'], { path: 'a.py' }),
    ];
    expect(evaluatePhaseGates(steps).readiness).toBe(true);
  });

  describe('the work product, judged from the calls', () => {
    it('scratch files created and later deleted, /tmp and build output need no verification', () => {
      const status = evaluatePhaseGates([
        sh('cat src/a.py && grep -n x src/a.py'),
        sh("cat > repro.py <<'EOF'\nimport a\nEOF"),
        sh("sed -i 's/x/y/' src/a.py"),
        sh('python repro.py'),
        sh('echo debug > /tmp/log.txt && rm -rf build/ dist/x.whl'),
        sh('rm repro.py'),
      ]);
      expect(status.verification).toBe(true);
    });

    it('an absolute and a relative path to one file are one file', () => {
      const status = evaluatePhaseGates([
        sh("sed -i 's/x/y/' src/a.py && pytest"),
        sh("cat > /testbed/Repro.java <<'EOF'\nclass Repro {}\nEOF"),
        sh('rm Repro.java'),
      ]);
      expect(status.verification).toBe(true);
    });

    it('git stash, a test run of the commit, git stash pop: back to the verified change', () => {
      const fix = sh("sed -i 's/x/y/' src/a.py");
      expect(
        evaluatePhaseGates([fix, sh('pytest'), sh('git stash'), sh('pytest'), sh('git stash pop')])
          .verification,
      ).toBe(true);
      // The run that only tested the commit, not the change, is still unverified.
      expect(
        evaluatePhaseGates([fix, sh('git stash && pytest && git stash pop')]).verification,
      ).toBe(false);
    });

    it('git checkout . puts every tracked file back', () => {
      const steps = [
        sh("sed -i 's/x/y/' src/a.py && pytest"),
        sh("sed -i 's/y/z/' src/b.py"),
        sh('git checkout .'),
      ];
      expect(evaluatePhaseGates(steps).change).toBe(false);
    });

    it('a file the run created and kept is part of the work product', () => {
      expect(
        evaluatePhaseGates([sh('python -m pytest'), sh('echo x > notes.md')]).verification,
      ).toBe(false);
    });

    it('a fix script written and run in one command is judged by its source', () => {
      const fix =
        "cat > go.py <<'EOF'\np = 'src/a.py'\ns = open(p).read()\nopen(p, 'w').write(s.replace('x', 'y'))\nEOF\npython go.py";
      const status = evaluatePhaseGates([
        sh('cat src/a.py && grep -n x src/a.py'),
        sh('pytest'),
        sh(fix),
        sh('rm go.py'),
      ]);
      expect(status.verification).toBe(false);
      // Left behind, the fix script itself is part of the work product too.
      expect(
        replayPhaseGates([{ tool: 'bash', input: { command: fix } }], { tools: { bash: 'shell' } })
          .unverified,
      ).toEqual(['go.py', 'src/a.py']);
    });

    it('a change whose targets cannot be told counts', () => {
      expect(evaluatePhaseGates([sh('pytest'), sh('python3 apply_fix.py')]).verification).toBe(
        false,
      );
      expect(evaluatePhaseGates([sh('pytest'), patch()]).verification).toBe(false);
    });

    it('a .bak moved back over the source after the tests is a change', () => {
      const status = evaluatePhaseGates([
        sh('cp src/a.py src/a.py.bak'),
        sh("sed -i 's/x/y/' src/a.py && pytest"),
        sh('mv src/a.py.bak src/a.py'),
      ]);
      expect(status.verification).toBe(false);
    });

    it("every-file-operation counts the scratch file's deletion too (the naive rule)", () => {
      const steps = [
        sh("sed -i 's/x/y/' a.py"),
        sh("cat > r.py <<'EOF'\nEOF"),
        sh('python r.py'),
        sh('rm r.py'),
      ];
      expect(evaluatePhaseGates(steps).verification).toBe(true);
      expect(evaluatePhaseGates(steps, { changes: 'every-file-operation' }).verification).toBe(
        false,
      );
    });
  });
});

describe('replayPhaseGates', () => {
  const tools = { bash: 'shell' as const };
  const run = [
    {
      tool: 'bash',
      input: { command: 'grep -rn add src && cat src/math.js' },
      result: { exitCode: 0, output: '' },
    },
    {
      tool: 'bash',
      input: { command: "sed -i 's/-/+/' src/math.js" },
      result: { exitCode: 0, output: '' },
    },
    { tool: 'bash', input: { command: 'npm test' }, result: { exitCode: 0, output: 'ok' } },
  ];

  it('returns the phases, the exit, what is unverified, warnings and the parts', () => {
    const result = replayPhaseGates(run, { tools });
    expect(result.phases).toEqual({ understanding: true, change: true, verification: true });
    expect(result.exit).toEqual({ refused: false, missing: [], reasons: [] });
    expect(result.unverified).toEqual([]);
    expect(result.parts.map((p) => p.map((x) => x.category))).toEqual([
      ['search', 'read'],
      ['patch'],
      ['verify'],
    ]);
  });

  it('refuses a last sed -i after the tests, naming the file and the real tool', () => {
    const result = replayPhaseGates(
      [...run, { tool: 'bash', input: { command: "sed -i '/print(/d' src/math.js" } }],
      { tools },
    );
    expect(result.phases.verification).toBe(false);
    expect(result.unverified).toEqual(['src/math.js']);
    expect(result.exit.refused).toBe(true);
    expect(result.exit.missing).toEqual(['verification']);
    expect(result.exit.reasons[0]).toContain('bash (');
  });

  it('judges on the work product when given: a change outside it needs no verification', () => {
    const later = [...run, { tool: 'bash', input: { command: 'echo "# notes" >> NOTES.md' } }];
    expect(replayPhaseGates(later, { tools }).phases.verification).toBe(false);
    expect(
      replayPhaseGates(later, { tools, workProduct: ['src/math.js'] }).phases.verification,
    ).toBe(true);
    expect(
      replayPhaseGates(later, { tools, workProduct: ['src/math.js', 'NOTES.md'] }).unverified,
    ).toEqual(['NOTES.md']);
  });

  it('a run that made no change is refused (verification false)', () => {
    const result = replayPhaseGates([run[0]!, run[2]!], { tools });
    expect(result.phases).toMatchObject({ change: false, verification: false });
    expect(result.exit.missing).toContain('change');
  });

  it('does not count a verification that did not run', () => {
    const notRun = [
      run[0]!,
      run[1]!,
      {
        tool: 'bash',
        input: { command: 'mvn test' },
        result: { exitCode: 127, output: 'bash: mvn: command not found' },
      },
    ];
    const result = replayPhaseGates(notRun, { tools });
    expect(result.phases.verification).toBe(false);
    expect(result.exit.reasons.join()).toContain('did not run');
  });

  it('warns once per stall: stallAfter steps without a change or a verification after the first change', () => {
    const reads = Array.from({ length: 7 }, (_, i) => ({
      tool: 'bash',
      input: { command: `cat src/f${i}.py` },
      result: { exitCode: 0, output: '' },
    }));
    const result = replayPhaseGates([...run, ...reads], { tools, warnAfter: 100 });
    const stalls = result.warnings.filter((w) => w.kind === 'stall');
    expect(stalls.map((w) => w.step)).toEqual([7]);
    expect(stalls[0]!.text).toContain('5 steps in a row');
    expect(stalls[0]!.text).toContain('bash (');
    expect(
      replayPhaseGates([...run, ...reads], { tools, warnAfter: 100, stallAfter: 3 })
        .warnings.filter((w) => w.kind === 'stall')
        .map((w) => w.step),
    ).toEqual([5]);
    // No change yet: no stall, however long the run reads.
    expect(
      replayPhaseGates(reads, { tools, warnAfter: 100 }).warnings.filter((w) => w.kind === 'stall'),
    ).toEqual([]);
  });

  it('per-tool categories see a shell as one tool: the seed rule refuses a working shell run', () => {
    expect(
      replayPhaseGates(run, { tools: { bash: 'other' }, verification: 'any' }).exit.refused,
    ).toBe(true);
  });

  it('other agents: SWE-agent on Java, where the JDK is missing, has no verification that ran', () => {
    const ok = { exitCode: 0, output: '' };
    const noJdk = (tool: string) => ({ exitCode: 127, output: `/bin/sh: 1: ${tool}: not found` });
    const steps = [
      {
        tool: 'bash',
        input: { command: 'find /testbed -name "*.java" | grep Parser' },
        result: ok,
      },
      {
        tool: 'bash',
        input: { command: 'str_replace_editor view /testbed/src/main/java/x/Parser.java' },
        result: ok,
      },
      {
        tool: 'bash',
        input: {
          command: "str_replace_editor create /testbed/Repro.java --file_text 'class Repro {}'",
        },
        result: ok,
      },
      {
        tool: 'bash',
        input: { command: 'cd /testbed && javac Repro.java && java Repro' },
        result: noJdk('javac'),
      },
      {
        tool: 'bash',
        input: {
          command:
            "str_replace_editor str_replace /testbed/src/main/java/x/Parser.java --old_str 'a' --new_str 'b'",
        },
        result: ok,
      },
      {
        tool: 'bash',
        input: { command: 'cd /testbed && mvn test -Dtest=ParserTest' },
        result: noJdk('mvn'),
      },
      { tool: 'bash', input: { command: 'rm Repro.java' }, result: ok },
      { tool: 'submit', input: {} },
    ];
    const withProduct = replayPhaseGates(steps, {
      tools: { bash: 'shell' },
      workProduct: ['src/main/java/x/Parser.java'],
    });
    expect(withProduct.phases).toEqual({ understanding: true, change: true, verification: false });
    expect(withProduct.unverified).toEqual(['/testbed/src/main/java/x/Parser.java']);
    expect(withProduct.exit.reasons.join()).toContain('did not run (the command was not found)');
    expect(replayPhaseGates(steps, { tools: { bash: 'shell' } }).unverified).toEqual([
      '/testbed/src/main/java/x/Parser.java',
    ]);
  });

  it('other agents: editor tools with their own names and inputs', () => {
    const steps = [
      { tool: 'Grep', input: { pattern: 'add' } },
      { tool: 'Read', input: { file_path: 'src/math.ts' } },
      { tool: 'Edit', input: { file_path: 'src/math.ts', old_string: '-', new_string: '+' } },
      {
        tool: 'Bash',
        input: { command: 'npx vitest run' },
        result: { exitCode: 1, output: '1 failed' },
      },
    ];
    const tools = { Grep: 'search', Read: 'read', Edit: 'patch', Bash: 'shell' } as const;
    expect(replayPhaseGates(steps, { tools }).phases).toEqual({
      understanding: true,
      change: true,
      verification: true,
    });
    expect(
      replayPhaseGates(steps, { tools, verification: 'passed' }).exit.reasons.join(),
    ).toContain('have not passed');
    // The same edit tool declared as a shell is read by its input's shape.
    expect(replayPhaseGates(steps, { tools: { ...tools, Edit: 'shell' } }).parts[2]).toEqual([
      { category: 'patch', op: 'edit', paths: ['src/math.ts'], program: 'Edit' },
    ]);
  });
});
