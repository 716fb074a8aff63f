import { describe, expect, it } from 'vitest';
import { verificationPassed } from '../outcome/check-outcome.js';
import { classifyShellCommand } from './classify-shell-command.js';
import { verificationRan } from './ran.js';

/** `category:op[paths]` per part, for compact expectations. */
const shape = (command: string, scripts?: Map<string, string>) =>
  classifyShellCommand(command, scripts ? { scripts } : {}).map(
    (p) =>
      `${p.category}:${p.op}${p.unknownTargets ? '?' : ''}${p.paths.length ? `[${p.paths.join(',')}]` : ''}`,
  );

describe('classifyShellCommand', () => {
  it('reads, searches and lists', () => {
    expect(shape('cat astropy/modeling/separable.py')).toEqual([
      'read:read[astropy/modeling/separable.py]',
    ]);
    expect(shape("sed -n '240,260p' a/b.py")).toEqual(['read:read[a/b.py]']);
    expect(shape("nl -ba sphinx/ext/autodoc/__init__.py | sed -n '650,670p'")).toEqual([
      'read:read[sphinx/ext/autodoc/__init__.py]',
      'read:read',
    ]);
    expect(shape('head -n 50 setup.py')).toEqual(['read:read[setup.py]']);
    expect(shape('grep -rn "def make_xref" sphinx/domains')).toEqual([
      'search:search[sphinx/domains]',
    ]);
    expect(shape('rg -n TODO src')).toEqual(['search:search[src]']);
    expect(shape('find . -name "*.py" | head')).toEqual(['discovery:list', 'read:read']);
    expect(shape('ls -la tests')).toEqual(['discovery:list[tests]']);
    expect(shape('git status && git diff')).toEqual(['discovery:list', 'discovery:read']);
    expect(shape('git log --oneline -5')).toEqual(['discovery:list']);
  });

  it('changes: sed -i, perl -pi, redirects, tee, cp, mv, rm, touch, mkdir, patch, git apply, git checkout', () => {
    expect(shape("sed -i 's/a - b/a + b/' src/math.js")).toEqual(['patch:edit[src/math.js]']);
    expect(shape("perl -pi -e 's/foo/bar/' lib/x.pm")).toEqual(['patch:edit[lib/x.pm]']);
    expect(shape('echo "x = 1" >> conf.py')).toEqual(['other:other', 'patch:write[conf.py]']);
    expect(shape('printf "a\\n" | tee -a notes.txt')).toEqual([
      'other:other',
      'patch:write[notes.txt]',
    ]);
    expect(shape('cp lib/ticker.py lib/ticker.py.bak')).toEqual(['patch:copy[lib/ticker.py.bak]']);
    expect(shape('mv lib/ticker.py.new lib/ticker.py')).toEqual([
      'patch:move[lib/ticker.py.new,lib/ticker.py]',
    ]);
    expect(shape('rm -rf reproduction check_a.py')).toEqual([
      'patch:delete[reproduction,check_a.py]',
    ]);
    expect(shape('touch pkg/__init__.py && mkdir -p pkg/sub')).toEqual([
      'patch:write[pkg/__init__.py]',
      'patch:write[pkg/sub]',
    ]);
    expect(shape('patch -p1 < fix.diff')).toEqual(['patch:edit?']);
    expect(
      shape("git apply <<'EOF'\n--- a/src/x.py\n+++ b/src/x.py\n@@ -1 +1 @@\n-a\n+b\nEOF"),
    ).toEqual(['patch:edit[src/x.py]']);
    expect(shape('git checkout -- src/x.py')).toEqual(['patch:restore[src/x.py]']);
    expect(shape('git stash')).toEqual(['patch:stash?']);
    expect(shape('git stash pop')).toEqual(['patch:unstash?']);
    expect(shape('git checkout -- .')).toEqual(['patch:restore']);
  });

  it('handles cd, compound commands, quotes and subshells', () => {
    expect(
      shape('cd /testbed && sed -i "s/a;b/c/" django/db/models.py; python -m pytest tests/x.py'),
    ).toEqual(['patch:edit[/testbed/django/db/models.py]', 'verify:test']);
    expect(shape('(cd docs && make html) && cat docs/_build/index.html')).toEqual([
      'verify:build',
      'read:read[docs/_build/index.html]',
    ]);
    expect(shape('grep -q "a && b" f.py || echo "missing; really"')).toEqual([
      'search:search[f.py]',
      'other:other',
    ]);
    expect(shape('cd src\ncat main.py')).toEqual(['read:read[src/main.py]']);
  });

  it('reads a heredoc as the body of its command, not as commands', () => {
    const command =
      "cat <<'EOF' > reproduce_issue.py\nimport os\nos.remove('x')\nrm -rf /\nEOF\npython reproduce_issue.py";
    expect(shape(command)).toEqual([
      'patch:write[reproduce_issue.py]',
      'verify:run[reproduce_issue.py]',
    ]);
    expect(shape('cat > a.txt << EOF\nhello && world\nEOF')).toEqual(['patch:write[a.txt]']);
  });

  it('sees python - <<EOF and python -c that write files as changes', () => {
    const heredoc = `python - <<'EOF'
path = 'django/utils/deprecation.py'
with open(path) as f:
    text = f.read()
with open(path, 'w') as f:
    f.write(text.replace('a', 'b'))
EOF`;
    expect(shape(heredoc)).toEqual(['patch:edit[django/utils/deprecation.py]']);
    expect(shape(`python3 -c "open('setup.cfg', 'a').write('x')"`)).toEqual([
      'patch:write[setup.cfg]',
    ]);
    expect(shape(`python3 -c "import sys; f = sys.argv[1]; open(f, 'w').write('')" x`)).toEqual([
      'patch:edit?',
    ]);
    expect(shape('python -c "import django; print(django.VERSION)"')).toEqual(['verify:run']);
    const check =
      "python - <<'EOF'\nimport os, tempfile\nfd, p = tempfile.mkstemp(suffix='.py')\nos.write(fd, b'x')\nos.remove(p)\nEOF";
    expect(shape(check)).toEqual(['verify:run']);
  });

  it('judges a script by the source the run wrote, or by its name', () => {
    const fix = "import re\np='src/a.py'\ns=open(p).read()\nopen(p,'w').write(re.sub('x','y',s))\n";
    const repro =
      "import pickle\npickle.dump(1, open('out.pickle','wb'))\nprint(pickle.load(open('out.pickle','rb')))\n";
    const scripts = new Map([
      ['apply_fix.py', fix],
      ['reproduce.py', repro],
    ]);
    expect(shape('python apply_fix.py', scripts)).toEqual(['patch:edit[src/a.py]']);
    expect(shape('python reproduce.py', scripts)).toEqual([
      'patch:write[out.pickle]',
      'verify:run[reproduce.py]',
    ]);
    expect(shape('python3 patch_query.py')).toEqual(['patch:edit?']);
    expect(shape('python3 reproduce_bug.py')).toEqual(['verify:run[reproduce_bug.py]']);
    expect(shape('node repro.js')).toEqual(['verify:run[repro.js]']);
  });

  it('knows test runners, builds and linters', () => {
    for (const command of [
      'pytest -x tests/test_a.py',
      'python -m pytest -k foo',
      'tox -e py39',
      './tests/runtests.py queries',
      'python tests/runtests.py --settings=test_sqlite',
      'npm test',
      'pnpm run test:unit',
      'yarn jest',
      'go test ./...',
      'cargo test',
      'mvn -q test',
      './gradlew test',
      'make test',
      'npx vitest run',
      'mypy src',
      'ruff check .',
      'bin/test sympy/core',
    ]) {
      expect(
        classifyShellCommand(command).map((p) => p.category),
        command,
      ).toEqual(['verify']);
    }
    expect(shape('tsc --noEmit')).toEqual(['verify:test']);
    expect(shape('cargo build')).toEqual(['verify:build']);
  });

  it('calls installs, git add and echo other', () => {
    expect(shape('pip install -e .')).toEqual(['other:other']);
    expect(
      shape('echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached'),
    ).toEqual(['other:other', 'other:other', 'discovery:read']);
  });

  it('reads SWE-agent commands and xargs / find -exec changes', () => {
    expect(shape('open src/main/App.java 120')).toEqual(['read:read[src/main/App.java]']);
    expect(shape('search_dir "parse("')).toEqual(['search:search']);
    expect(shape('create Repro.java')).toEqual(['patch:write[Repro.java]']);
    expect(classifyShellCommand('edit 10:12', { openFile: 'src/App.java' })[0]?.paths).toEqual([
      'src/App.java',
    ]);
    expect(shape('edit 10:12\n    cp = compute()\n    rm -rf x\nend_of_edit', undefined)).toEqual([
      'patch:edit?',
    ]);
    expect(shape('str_replace_editor view /testbed/src/App.java')).toEqual([
      'read:read[/testbed/src/App.java]',
    ]);
    expect(
      shape("str_replace_editor str_replace /testbed/src/App.java --old_str 'a;\nb' --new_str 'c'"),
    ).toEqual(['patch:edit[/testbed/src/App.java]']);
    expect(
      shape("str_replace_editor create /testbed/Repro.java --file_text 'class Repro {}'"),
    ).toEqual(['patch:write[/testbed/Repro.java]']);
    expect(shape('cd /testbed && javac Repro.java && java Repro')).toEqual([
      'verify:build',
      'verify:run',
    ]);
    expect(shape('node --test test/')).toEqual(['verify:test']);
    expect(shape('find . -name "*.py" -delete')).toEqual(['patch:delete?']);
    expect(shape('find . -name "*.pyc" -delete')).toEqual(['patch:delete[*.pyc]']);
    expect(shape('find . -type d -name __pycache__ -exec rm -rf {} +')).toEqual([
      'patch:delete[__pycache__]',
    ]);
    expect(shape("sed -i '' 's/a/b/' src/x.js")).toEqual(['patch:edit[src/x.js]']);
    expect(
      shape(
        "python3 - <<'EOF'\nimport subprocess\nsubprocess.run(['sed', '-i', 's/a/b/', 'x.py'])\nEOF",
      ),
    ).toEqual(['patch:edit?']);
    expect(shape("grep -l foo -r src | xargs sed -i 's/foo/bar/'")).toEqual([
      'search:search[src]',
      'patch:edit?',
    ]);
  });
});

describe('verificationRan', () => {
  it('says no when the check never ran', () => {
    expect(verificationRan({ exitCode: 127, output: 'bash: mvn: command not found' })).toBe(false);
    expect(verificationRan({ exitCode: 126, output: '' })).toBe(false);
    expect(
      verificationRan({
        exitCode: 2,
        output: "python: can't open file '/testbed/repro.py': [Errno 2] No such file or directory",
      }),
    ).toBe(false);
    expect(
      verificationRan({ exitCode: 1, output: '/usr/bin/python3: No module named pytest' }),
    ).toBe(false);
    expect(
      verificationRan({
        exitCode: 4,
        output: 'ERROR: file or directory not found: tests/test_x.py',
      }),
    ).toBe(false);
    expect(verificationRan({ output: 'sh: 1: gradle: not found' })).toBe(false);
    expect(verificationRan({ output: 'npm ERR! Missing script: "test"' })).toBe(false);
  });

  it('says yes for checks that ran, failing ones included', () => {
    expect(verificationRan({ exitCode: 1, output: '1 failed, 3 passed' })).toBe(true);
    expect(
      verificationRan({
        exitCode: 1,
        output: "FileNotFoundError: [Errno 2] No such file or directory: 'x.txt'",
      }),
    ).toBe(true);
    expect(
      verificationRan({
        exitCode: 1,
        output: "rm: cannot remove 'a.py': No such file or directory\nok",
      }),
    ).toBe(true);
    expect(verificationRan({ exitCode: 0, output: 'ok' })).toBe(true);
  });

  it('reads an exit code written in the text', () => {
    expect(verificationRan({ output: '<returncode>127</returncode>\n<output></output>' })).toBe(
      false,
    );
    expect(verificationPassed({ output: 'Exit code: 1\n2 failed' })).toBe(false);
    expect(verificationPassed({ output: 'exit code 0' })).toBe(true);
  });

  it('passing means exit code 0', () => {
    expect(verificationPassed({ exitCode: 0 })).toBe(true);
    expect(verificationPassed({ exitCode: 1 })).toBe(false);
    expect(verificationPassed({ output: 'ok' })).toBe(true);
    expect(verificationPassed({ output: 'boom', isError: true })).toBe(false);
  });
});
