import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeReading, readCheckOutcome, verificationPassed } from './check-outcome.js';

/** Real runner output (see __fixtures__/README.md for the runner, version and command). */
const fixture = (name: string) =>
  readFileSync(new URL(`./__fixtures__/${name}.txt`, import.meta.url), 'utf8');

// Each runner: its real failing and passing output, the line that decides, and the exit code
// the run really had (`codeInText`: the failing output states it, as yarn's `error Command
// failed with exit code 1.` does, so it decides there too).
const RUNNERS: Array<{
  runner: string;
  file: string;
  failing: string;
  passing: string;
  code: number;
  codeInText?: true;
}> = [
  {
    runner: 'pytest',
    file: 'pytest',
    failing: '1 failed, 1 passed in 1.19s',
    passing: '2 passed in 1.06s',
    code: 1,
  },
  {
    runner: 'pytest',
    file: 'pytest-q',
    failing: '1 failed, 1 passed in 0.91s',
    passing: '2 passed in 1.03s',
    code: 1,
  },
  {
    runner: 'unittest',
    file: 'unittest',
    failing: 'FAILED (failures=1)',
    passing: 'OK',
    code: 1,
  },
  {
    runner: 'jest',
    file: 'jest',
    failing: 'Tests:       1 failed, 1 passed, 2 total',
    passing: 'Tests:       2 passed, 2 total',
    code: 1,
  },
  {
    runner: 'vitest',
    file: 'vitest',
    failing: 'Tests  1 failed | 1 passed (2)',
    passing: 'Tests  2 passed (2)',
    code: 1,
  },
  { runner: 'mocha', file: 'mocha', failing: '1 failing', passing: '2 passing (5ms)', code: 1 },
  { runner: 'node --test', file: 'node-test', failing: 'ℹ fail 1', passing: 'ℹ pass 2', code: 1 },
  {
    runner: 'jest',
    file: 'npm-test',
    failing: 'Tests:       1 failed, 1 passed, 2 total',
    passing: 'Tests:       2 passed, 2 total',
    code: 1,
  },
  {
    runner: 'jest',
    file: 'pnpm-test',
    failing: 'Tests:       1 failed, 1 passed, 2 total',
    passing: 'Tests:       2 passed, 2 total',
    code: 1,
  },
  {
    runner: 'jest',
    file: 'yarn-test',
    failing: 'Tests:       1 failed, 1 passed, 2 total',
    passing: 'Tests:       2 passed, 2 total',
    code: 1,
    codeInText: true,
  },
  {
    runner: 'go test',
    file: 'go',
    failing: 'FAIL\texample.com/calc\t0.007s',
    passing: 'ok  \texample.com/calc\t0.005s',
    code: 1,
  },
  {
    runner: 'go test',
    file: 'go-v',
    failing: 'FAIL\texample.com/calc\t0.003s',
    passing: 'ok  \texample.com/calc\t0.005s',
    code: 1,
  },
  {
    runner: 'cargo test',
    file: 'cargo',
    failing:
      'test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
    passing:
      'test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
    code: 101,
  },
  {
    runner: 'maven',
    file: 'maven',
    failing: '[ERROR] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0',
    passing: '[INFO] Tests run: 2, Failures: 0, Errors: 0, Skipped: 0',
    code: 1,
  },
  {
    runner: 'gradle',
    file: 'gradle',
    failing: '2 tests completed, 1 failed',
    passing: 'BUILD SUCCESSFUL in 7s',
    code: 1,
  },
  {
    runner: 'junit console',
    file: 'junit-console',
    failing: '[         1 tests failed          ]',
    passing: '[         2 tests successful      ]',
    code: 1,
  },
];

describe('readCheckOutcome on real runner output', () => {
  for (const r of RUNNERS) {
    it(`${r.file}: failing and passing, with and without the exit code`, () => {
      const failing = fixture(`${r.file}-failing`);
      const passing = fixture(`${r.file}-passing`);
      // Without an exit code (a tool that returns text only): the summary decides.
      const fromText = readCheckOutcome({ output: failing });
      expect(fromText).toMatchObject({
        outcome: 'failed',
        by: r.codeInText ? 'exit-code' : 'summary',
        runner: r.runner,
      });
      expect(normalize(fromText.summary)).toContain(normalize(r.failing));
      const passText = readCheckOutcome({ output: passing });
      expect(passText).toMatchObject({ outcome: 'passed', by: 'summary', runner: r.runner });
      expect(normalize(passText.summary)).toContain(normalize(r.passing));
      // With the exit code the run really had: it decides, the summary goes with it.
      expect(readCheckOutcome({ exitCode: r.code, output: failing })).toMatchObject({
        outcome: 'failed',
        by: 'exit-code',
        exitCode: r.code,
        runner: r.runner,
      });
      expect(readCheckOutcome({ exitCode: 0, output: passing })).toMatchObject({
        outcome: 'passed',
        by: 'exit-code',
      });
      // Piped on (`… | tail`): the exit code is the pipe's, the summary still decides.
      expect(
        readCheckOutcome({ exitCode: 0, output: failing }, { exitCodeHidden: true }).outcome,
      ).toBe('failed');
      expect(verificationPassed({ output: failing })).toBe(false);
      expect(verificationPassed({ output: passing })).toBe(true);
    });
  }

  it('npm, pnpm and yarn: the wrapper says the script failed; every test passing with a suite that did not load is a failure', () => {
    expect(readCheckOutcome({ output: fixture('pnpm-test-failing') }).outcome).toBe('failed');
    const wrapperOnly = (text: string) =>
      readCheckOutcome({ output: `> calc@1.0.0 test\n> node check.js\n\n${text}\n` });
    // The wrapper lines alone (npm ≤ 8, npm 9–10, pnpm, yarn 1), as they print them.
    expect(wrapperOnly('npm ERR! Test failed.  See above for more details.')).toMatchObject({
      outcome: 'failed',
      runner: 'npm/pnpm/yarn',
    });
    expect(
      wrapperOnly('npm error Lifecycle script `test` failed with error:\nnpm error code 1').outcome,
    ).toBe('failed');
    expect(wrapperOnly(fixture('pnpm-test-failing').split('\n').at(-2) ?? '').outcome).toBe(
      'failed',
    );
    expect(wrapperOnly('error Command failed with exit code 1.').outcome).toBe('failed');
    expect(wrapperOnly('Done in 1.52s.').outcome).toBe('unknown');
    // `npm test` ran jest over every file: all tests passed, one suite failed to load.
    expect(readCheckOutcome({ output: fixture('jest-suite-failed-to-run') })).toMatchObject({
      outcome: 'failed',
      summary: 'Test Suites: 1 failed, 2 passed, 3 total',
    });
  });

  it('go test: a build failure fails', () => {
    expect(readCheckOutcome({ output: fixture('go-build-failed') })).toMatchObject({
      outcome: 'failed',
      summary: 'FAIL\texample.com/calc [build failed]',
    });
  });

  it('reads the public SWE-bench trajectories (stored outputs cut to 300 characters)', () => {
    // mini-swe-agent · gemini-3-pro, django__django-10880 step 18: `./tests/runtests.py annotations`.
    const djangoOk =
      "Creating test database for alias 'default'\\u2026\n...................s..............s...\n----------------------------------------------------------------------\nRan 38 tests in 0.056s\n\nOK (skipped=2)\nDestroying test database for alias 'default'\\u2026\nTesting against Django installed in '/testbed/djang";
    expect(readCheckOutcome({ output: djangoOk })).toMatchObject({
      outcome: 'passed',
      runner: 'unittest',
      summary: 'Ran 38 tests in 0.056s … OK (skipped=2)',
    });
    // django__django-11119 step 24: `python3 tests/runtests.py template_tests.test_loaders`, exit 1.
    const djangoFail =
      "Testing against Django installed in '/testbed/django' with up to 8 processes\nSystem check identified no issues (0 silenced).\n..........s......F..\n======================================================================\nFAIL: test_permissions_error (template_tests.test_loaders.FileSystemLoaderTests)\n--";
    expect(readCheckOutcome({ output: djangoFail })).toMatchObject({
      outcome: 'failed',
      summary: 'FAIL: test_permissions_error (template_tests.test_loaders.FileSystemLoaderTests)',
    });
    expect(readCheckOutcome({ output: djangoFail, exitCode: 1 }).by).toBe('exit-code');
    // django__django-10973 step 23: `python3 tests/runtests.py dbshell`, exit 1.
    const djangoError =
      "Testing against Django installed in '/testbed/django' with up to 8 processes\nSystem check identified no issues (0 silenced).\n.....ssEEEEEE\n======================================================================\nERROR: test_accent (dbshell.test_postgresql.PostgreSqlDbshellCommandTestCase)\n------------";
    expect(readCheckOutcome({ output: djangoError }).outcome).toBe('failed');
    // pydata__xarray-2905 step 36: pytest on one test, exit 1; only the progress line is left.
    const pytestProgress =
      '============================= test session starts ==============================\nplatform linux -- Python 3.10.15, pytest-7.4.0, pluggy-1.5.0\nrootdir: /testbed\nconfigfile: setup.cfg\nplugins: xdist-3.6.1, cov-5.0.0, env-1.1.5, hypothesis-6.114.0\ncollected 1 item\n\nxarray/tests/test_dataarray.py F     ';
    expect(readCheckOutcome({ output: pytestProgress })).toMatchObject({
      outcome: 'failed',
      summary: 'xarray/tests/test_dataarray.py F',
    });
    // pytest-dev__pytest-5631 step 13: `pytest test_reproduce.py`, exit 1, cut inside `[100%]`.
    const pytestError =
      '============================= test session starts ==============================\nplatform linux -- Python 3.9.20, pytest-5.0.2.dev58+gcb828ebe7, py-1.11.0, pluggy-0.13.1\nrootdir: /testbed, inifile: tox.ini\ncollected 1 item\n\ntest_reproduce.py E                                                      [10';
    expect(readCheckOutcome({ output: pytestError }).outcome).toBe('failed');
    // pytest-dev__pytest-10356 step 29: `pytest -s verify_precedence.py`, exit 0, summary cut.
    const pytestCut =
      '============================= test session starts ==============================\nplatform linux -- Python 3.9.20, pytest-7.2.0.dev312+g3c1534944, pluggy-0.13.1\nrootdir: /testbed, configfile: pytest.ini\ncollected 1 item\n\nverify_precedence.py Closest foo: 1\n.\n\n============================== 1 passed i';
    expect(readCheckOutcome({ output: pytestCut })).toMatchObject({
      outcome: 'passed',
      summary: '============================== 1 passed i',
    });
    // astropy__astropy-13236 step 19: `pytest astropy/table/tests/test_mixin.py`, exit 1, cut
    // before any result: only the exit code can tell.
    const pytestHeader =
      '============================= test session starts ==============================\nplatform linux -- Python 3.9.20, pytest-7.4.0, pluggy-1.3.0\n\nRunning tests with Astropy version 5.2.dev64+g6ed769d58d.d20241024.\nRunning tests in astropy/table/tests/test_mixin.py.\n\nDate: 2025-11-18T23:44:15\n\nPlatform: ';
    expect(readCheckOutcome({ output: pytestHeader }).outcome).toBe('unknown');
    expect(readCheckOutcome({ output: pytestHeader, exitCode: 1 }).outcome).toBe('failed');
  });

  it("an agent script's own words are not a runner's summary", () => {
    // django__django-10097 step 7: `python3 reproduce_issue.py`, exit 0.
    const script =
      'Testing invalid URLs (should raise ValidationError):\nFAIL: http://foo/bar@example.com was accepted but should be invalid\nFAIL: http://user:pass/word@example.com was accepted but should be invalid\nFAIL: http://user:pass:word@example.com was accepted but should be invalid\nFAIL: http://user@name:pass@e';
    expect(readCheckOutcome({ output: script }).outcome).toBe('unknown');
    // sympy__sympy-17655 step 28: `python3 run_tests.py` (a runner the agent wrote), exit 0.
    const own =
      'Running test_point...\ntest_point passed\nRunning test_point3D...\ntest_point3D passed\nRunning test_Point2D...\ntest_Point2D passed';
    expect(readCheckOutcome({ output: own }).outcome).toBe('unknown');
    expect(readCheckOutcome({ output: 'FAIL\nok' }).outcome).toBe('unknown');
  });

  it('exit codes in a field or in the text; tool errors; nothing at all', () => {
    expect(
      readCheckOutcome({ output: '<returncode>1</returncode>\n<output>boom</output>' }),
    ).toMatchObject({
      outcome: 'failed',
      exitCode: 1,
    });
    expect(readCheckOutcome({ output: 'Exit code: 0\nfine' }).outcome).toBe('passed');
    expect(readCheckOutcome({ output: 'boom', isError: true })).toMatchObject({
      outcome: 'failed',
      by: 'tool-error',
    });
    expect(readCheckOutcome({ output: 'ok' })).toEqual({ outcome: 'unknown', by: 'nothing' });
    expect(readCheckOutcome(undefined)).toEqual({ outcome: 'unknown', by: 'nothing' });
    // A passing summary that disagrees with the exit code is another command's: not shown.
    expect(
      readCheckOutcome({ exitCode: 1, output: `${fixture('pytest-q-passing')}Traceback …\n` }),
    ).toEqual({ outcome: 'failed', by: 'exit-code', exitCode: 1 });
    expect(
      describeReading(readCheckOutcome({ exitCode: 1, output: fixture('pytest-q-failing') })),
    ).toBe('failed (exit code 1; "1 failed, 1 passed in 0.91s")');
  });

  it('bounded on hostile output: huge, colour-laden, CR line ends', () => {
    const noise = 'x'.repeat(200_000);
    const huge = `${noise}\n${fixture('pytest-failing')}`;
    expect(readCheckOutcome({ output: huge }).outcome).toBe('failed');
    expect(
      readCheckOutcome({ output: fixture('vitest-failing').replace(/\n/g, '\r\n') }).outcome,
    ).toBe('failed');
    const long = readCheckOutcome({
      output: `=== 1 failed${', 2 passed'.repeat(100)} in 1.0s ===`,
    });
    expect(long.outcome).toBe('failed');
    expect(long.summary?.length).toBeLessThanOrEqual(200);
    // Inputs shaped against the patterns still give an answer (the test's timeout bounds them).
    expect(
      readCheckOutcome({ output: `${'= '.repeat(20_000)}\n${'1 passed, '.repeat(5_000)}` }).outcome,
    ).toBe('unknown');
    expect(
      readCheckOutcome({ output: `a.py ${'.'.repeat(40_000)}F ${'['.repeat(20_000)}` }).outcome,
    ).toBe('unknown');
  });
});

const normalize = (s: string | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();
