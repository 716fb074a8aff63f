import { TEST_RUNNERS } from './programs.js';
import { basename, resolve } from './shell-part.js';

const PYTHON_TEST_MODULES = /^(?:pytest|unittest|nose|nose2|tox|nox|trial|green)$/;
const PACKAGE_TEST_SCRIPT = /^(?:test|tests|t|e2e|spec|vitest|jest|mocha)(?::.*)?$/;
// Options whose value is the next word (`-k expr`, `--grep x`), not a test file.
const VALUED =
  /^(?:-[kmpcoWnrtgC]|--(?:tb|maxfail|deselect|ignore|rootdir|confcutdir|grep|testNamePattern|reporter|config|timeout|durations|run|parallel|settings|tag|exclude-tag|tests))$/;

/**
 * When a simple command (its words after wrappers) runs the repository's test runner: the test
 * files, packages or suites it was given (`[]`: the runner finds the suite itself). Undefined
 * for anything else — linters, type checkers, builds and scripts are not the project's tests.
 */
export function testSuiteOf(words: readonly string[], cwd: string): string[] | undefined {
  const [program, ...args] = words;
  if (program === undefined) return undefined;
  const name = basename(program);
  const targets = (list: readonly string[]) =>
    list
      .filter((a, i) => !a.startsWith('-') && !VALUED.test(list[i - 1] ?? '') && a !== '--')
      .map((a) => resolve(cwd, a.replace(/::.*$/, '')))
      .filter((a) => a !== '');
  if (TEST_RUNNERS.has(name)) {
    // `vitest run x`, `playwright test x`: the subcommand is not a target.
    const rest = /^(?:vitest|playwright|cypress)$/.test(name) ? args.slice(1) : args;
    return targets(rest);
  }
  // A runner script named by path (`./tests/runtests.py`) is one of the files the run runs.
  if (/^runtests?(?:\.py)?$/.test(name) || (name === 'test' && program.includes('/')))
    return [...(program.includes('/') ? [resolve(cwd, program)] : []), ...targets(args)];
  if (/^(?:python[\d.]*|pypy[\d.]*)$/.test(name)) return pythonSuite(args, cwd, targets);
  if (/^(?:node|nodejs)$/.test(name) && args.includes('--test')) return targets(args);
  if ((name === 'deno' || name === 'bun') && args[0] === 'test') return targets(args.slice(1));
  if (name === 'go' && args[0] === 'test') return targets(args.slice(1));
  if (name === 'cargo' && (args[0] === 'test' || args[0] === 'nextest')) return [];
  if (/^(?:mvnw?|gradlew?)$/.test(name)) {
    const goals = args.filter((a) => !a.startsWith('-'));
    return goals.some((g) => /^(?:test|verify|check|integration-test|surefire:test)$/.test(g)) ||
      args.some((a) => a.startsWith('-Dtest'))
      ? []
      : undefined;
  }
  if (
    (name === 'make' || name === 'gmake') &&
    args.some((a) => /^(?:test|tests|check|unittest)$/.test(a))
  )
    return [];
  if ((name === 'dotnet' || name === 'swift') && args[0] === 'test') return [];
  if (
    (name === 'rake' || name === 'composer') &&
    /^(?:test|spec|phpunit)(?::.*)?$/.test(args[0] ?? '')
  )
    return [];
  if (['npm', 'pnpm', 'yarn', 'bun'].includes(name)) {
    let rest = args;
    while (rest[0]?.startsWith('-')) {
      const valued = /^(?:--prefix|-C|--dir|--cwd|-F|--filter|-w|--workspace)$/.test(rest[0]);
      rest = rest.slice(valued ? 2 : 1);
    }
    if (rest[0] === 'exec' || rest[0] === 'dlx' || rest[0] === 'x')
      return testSuiteOf(rest.slice(1), cwd);
    const script = rest[0] === 'run' || rest[0] === 'run-script' ? rest[1] : rest[0];
    return script !== undefined && PACKAGE_TEST_SCRIPT.test(script) ? [] : undefined;
  }
  if (name === 'npx' || name === 'bunx') {
    let rest = args;
    while (rest[0]?.startsWith('-')) rest = rest.slice(1);
    return testSuiteOf(rest, cwd);
  }
  return undefined;
}

function pythonSuite(
  args: readonly string[],
  cwd: string,
  targets: (list: readonly string[]) => string[],
): string[] | undefined {
  const m = args.indexOf('-m');
  if (m !== -1) {
    const mod = args[m + 1] ?? '';
    const rest = args.slice(m + 2);
    if (PYTHON_TEST_MODULES.test(mod)) return targets(rest.filter((a) => a !== 'discover'));
    if (/^(?:django|manage)$/.test(mod) && rest[0] === 'test') return targets(rest.slice(1));
    return undefined;
  }
  const script = args.find((a) => !a.startsWith('-'));
  if (script === undefined) return undefined;
  const rest = args.slice(args.indexOf(script) + 1);
  const base = basename(script);
  if (base === 'manage.py') return rest[0] === 'test' ? targets(rest.slice(1)) : undefined;
  if (/^runtests?\.py$/.test(base) || base === 'test')
    return [resolve(cwd, script), ...targets(rest)];
  if (base === 'setup.py' && rest.includes('test')) return [];
  return undefined;
}
