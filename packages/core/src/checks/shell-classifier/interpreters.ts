import { FIX_SCRIPT, TEST_SCRIPT } from './programs.js';
import { scriptEffects } from './script-writes.js';
import {
  basename,
  type ClassifyOptions,
  part,
  resolve,
  type ShellPart,
  unknown,
} from './shell-part.js';
import type { SimpleCommand } from './simple-commands.js';

/**
 * `python`, `node`, `ruby`, … : inline code (`-c`, `-e`, a heredoc on stdin), a module
 * (`-m pytest`), a project runner (`manage.py test`, `runtests.py`) or a script file.
 */
export function classifyInterpreter(
  name: string,
  args: string[],
  cwd: string,
  cmd: SimpleCommand,
  pipedStdin: string | undefined,
  options: ClassifyOptions,
): ShellPart[] {
  const program = name;
  // Inline code: `python -c "…"`, `node -e "…"`, `perl -e`.
  const inlineFlag = args.findIndex(
    (a) => a === '-c' || a === '-e' || a === '--eval' || (a === '-p' && /node/.test(name)),
  );
  if (inlineFlag !== -1 && args[inlineFlag + 1] !== undefined)
    return inlineCode(args[inlineFlag + 1]!, cwd, program);
  // `python -m module …`
  const m = args.indexOf('-m');
  if (m !== -1) {
    const mod = args[m + 1] ?? '';
    const rest = args.slice(m + 2);
    if (
      /^(?:pytest|unittest|nose|nose2|tox|nox|mypy|pyright|flake8|pylint|pyflakes|pycodestyle|doctest|py_compile|compileall|ruff|trial|hypothesis|coverage|green|xdist)$/.test(
        mod,
      )
    ) {
      if (mod === 'ruff' && (rest.includes('format') || rest.includes('--fix')))
        return [unknown('edit', mod)];
      return [
        part('verify', mod === 'py_compile' || mod === 'compileall' ? 'build' : 'test', [], mod),
      ];
    }
    if (/^(?:black|isort|autopep8|yapf)$/.test(mod))
      return rest.includes('--check') || rest.includes('--diff')
        ? [part('verify', 'test', [], mod)]
        : [
            part(
              'patch',
              'edit',
              rest.filter((a) => !a.startsWith('-')).map((a) => resolve(cwd, a)),
              mod,
            ),
          ];
    if (
      /^(?:pip|ensurepip|venv|virtualenv|site|http\.server|json\.tool|pydoc|this|sysconfig|platform)$/.test(
        mod,
      )
    )
      return [part('other', 'other', [], mod)];
    if (/^(?:django|manage)$/.test(mod) && rest[0] === 'test')
      return [part('verify', 'test', [], mod)];
    // Running a project module is running the code under change.
    return [part('verify', 'run', [], mod)];
  }
  if (/^(?:node|nodejs|deno|bun)$/.test(name) && args.includes('--test'))
    return [part('verify', 'test', [], name)];
  const scriptIndex = args.findIndex(
    (a, i) => !a.startsWith('-') && !(i > 0 && /^-[WXQ]$/.test(args[i - 1]!)),
  );
  const script = scriptIndex === -1 ? undefined : args[scriptIndex];
  if (script === undefined || script === '-') {
    const body = cmd.stdin ?? pipedStdin;
    return body === undefined
      ? [part('other', 'other', [], program)]
      : inlineCode(body, cwd, program);
  }
  const rest = args.slice(scriptIndex + 1);
  const base = basename(script);
  if (/(?:^|\/)manage\.py$/.test(script)) {
    const sub = rest[0] ?? '';
    if (sub === 'test') return [part('verify', 'test', [], 'manage.py')];
    if (/^(?:makemigrations|squashmigrations|startapp|startproject)$/.test(sub))
      return [unknown('write', 'manage.py')];
    return [part('verify', 'run', [], 'manage.py')];
  }
  if (
    /^runtests?\.py$/.test(base) ||
    /^(?:test|tests)$/.test(base) ||
    (base === 'setup.py' && rest.includes('test'))
  ) {
    return [part('verify', 'test', [], base)];
  }
  if (base === 'setup.py') return [part('verify', 'build', [], base)];
  return runScript(resolve(cwd, script), program, options);
}

/** Code given on the command line: a write makes it a change, otherwise running it verifies. */
const TEMP_FILES =
  /\btempfile\b|mkdtemp|TemporaryDirectory|NamedTemporaryFile|os\.tmpdir\(\)|['"]\/tmp\//;

function inlineCode(code: string, cwd: string, program: string): ShellPart[] {
  const effects = scriptEffects(code);
  if (!effects.writes) return [part('verify', 'run', [], program)];
  // A check that writes only temporary files (`tempfile`, `/tmp`) and edits nothing is a run.
  if (effects.targets === undefined && !effects.rewrites && TEMP_FILES.test(code)) {
    return [part('verify', 'run', [], program)];
  }
  if (effects.targets === undefined) return [unknown('edit', program)];
  return [
    part(
      'patch',
      effects.rewrites ? 'edit' : 'write',
      effects.targets.map((t) => resolve(cwd, t)),
      program,
    ),
  ];
}

/**
 * Running a script file. Its source, when the run wrote it earlier, decides: one that rewrites
 * files is a change (to its literal targets, or unknown ones); one that only creates data files
 * while it runs is a verification. Unknown source: a fix-like name (`apply_fix.py`) is a change
 * to unknown targets, anything else a verification.
 */
export function runScript(path: string, program: string, options: ClassifyOptions): ShellPart[] {
  const base = basename(path);
  const stem = base.replace(/\.[^.]*$/, '');
  const testLike = TEST_SCRIPT.test(stem);
  const fixLike = !testLike && FIX_SCRIPT.test(stem);
  const source = options.scripts?.get(path) ?? options.scripts?.get(base);
  if (source !== undefined) {
    const effects = scriptEffects(source);
    // A test-like name (`reproduce.py`) that writes and reads back its own data is still a test.
    if (
      effects.writes &&
      !testLike &&
      (effects.rewrites || fixLike) &&
      !onlyScratch(effects.targets)
    ) {
      return effects.targets === undefined
        ? [unknown('edit', program)]
        : [part('patch', 'edit', effects.targets, program)];
    }
    if (effects.writes && effects.targets !== undefined && effects.targets.length > 0) {
      return [
        part('patch', 'write', effects.targets, program),
        part('verify', 'run', [path], program),
      ];
    }
    return [part('verify', 'run', [path], program)];
  }
  if (fixLike) return [unknown('edit', program)];
  return [part('verify', 'run', [path], program)];
}

function onlyScratch(targets: string[] | undefined): boolean {
  return targets !== undefined && targets.length > 0 && targets.every((t) => t.startsWith('/tmp/'));
}
