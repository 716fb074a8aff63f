import { posix } from 'node:path';
import { isScratchPath } from '../scratch.js';
import { classifyGit, diffPart } from './git.js';
import { classifyInterpreter, runScript } from './interpreters.js';
import {
  ACI_EDIT,
  ACI_READ,
  ACI_SEARCH,
  BUILDERS,
  CHECKERS,
  EDITORS,
  ENDS,
  FORMATTERS,
  INTERPRETERS,
  LISTERS,
  OTHER,
  READERS,
  SEARCHERS,
  SHELLS,
} from './programs.js';
import {
  basename,
  type ClassifyOptions,
  part,
  resolve,
  type ShellPart,
  unknown,
} from './shell-part.js';
import { type SimpleCommand, simpleCommands } from './simple-commands.js';
import { testSuiteOf } from './test-runs.js';
import { stripWrappers } from './wrappers.js';

export { type ClassifyOptions, resolve, type ShellOp, type ShellPart } from './shell-part.js';

/**
 * Classifies a shell command line into its ordered parts: what each simple command reads,
 * searches, lists, changes (with the files it changes) or verifies. Covers what coding agents
 * type (`cat`/`sed -n`/`grep`/`find`, `sed -i`/heredoc writes/`cp`/`mv`/`rm`/`git apply`,
 * scripts that rewrite files, test runners, builds and linters); anything else is `other`.
 */
export function classifyShellCommand(command: string, options: ClassifyOptions = {}): ShellPart[] {
  // SWE-agent's multi-line edits carry their text up to `end_of_edit`: text, not commands.
  const text = command.replace(
    /^((?:edit|insert|append)\b[^\n]*)\n[\s\S]*?\n\s*end_of_(?:edit|insert|append)\s*$/gm,
    '$1',
  );
  const commands = simpleCommands(text);
  const parts: ShellPart[] = [];
  const cwdAt = [options.cwd ?? ''];
  let previousStdin: string | undefined;
  for (const [index, cmd] of commands.entries()) {
    // A `cd` inside `( … )` ends with the group.
    cwdAt.length = Math.min(cwdAt.length, cmd.depth + 1);
    while (cwdAt.length < cmd.depth + 1) cwdAt.push(cwdAt[cwdAt.length - 1]!);
    const cwd = cwdAt[cmd.depth]!;
    const pipedIn = index > 0 && commands[index - 1]!.next === '|' ? previousStdin : undefined;
    const result = classifySimple(cmd, cwd, pipedIn, options);
    if (result.cwd !== undefined) cwdAt[cmd.depth] = result.cwd;
    // A check whose failure would not reach the exit code: only its output tells how it went.
    parts.push(
      ...(cmd.statusReported
        ? result.parts
        : result.parts.map((p) =>
            p.category === 'verify' ? { ...p, exitCodeHidden: true as const } : p,
          )),
    );
    previousStdin = cmd.stdin;
  }
  return parts;
}

interface Classified {
  parts: ShellPart[];
  cwd?: string;
}

/**
 * One simple command's parts; a run of the repository's test runner (or of a declared test
 * command) has its verification marked with the suite it runs.
 */
function classifySimple(
  cmd: SimpleCommand,
  cwd: string,
  pipedStdin: string | undefined,
  options: ClassifyOptions,
): Classified {
  if (isDeclaredTestCommand(cmd.text, options.testCommands)) {
    const name = cmd.words[0] === undefined ? undefined : basename(cmd.words[0]);
    return { parts: [{ ...part('verify', 'test', [], name), suite: [] }] };
  }
  const result = classifyWords(cmd, cwd, pipedStdin, options);
  const suite = testSuiteOf(stripWrappers(cmd.words).words, cwd);
  if (suite === undefined) return result;
  return {
    ...result,
    parts: result.parts.map((p) =>
      p.category === 'verify' && p.op === 'test' ? { ...p, suite } : p,
    ),
  };
}

function isDeclaredTestCommand(
  text: string | undefined,
  declared: readonly (string | RegExp)[] | undefined,
): boolean {
  if (text === undefined || declared === undefined) return false;
  const line = text.trim();
  return declared.some((d) =>
    typeof d === 'string'
      ? line === d.trim() || line.startsWith(`${d.trim()} `)
      : line.search(d) !== -1,
  );
}

function classifyWords(
  cmd: SimpleCommand,
  cwd: string,
  pipedStdin: string | undefined,
  options: ClassifyOptions,
): Classified {
  const stripped = stripWrappers(cmd.words);
  if (stripped.bareEnv) return { parts: [part('discovery', 'list', [])] };
  let words = stripped.words;
  if (words[0] === 'xargs') {
    words = words.slice(1);
    while (words[0]?.startsWith('-')) words = words.slice(/^-[InLPd]$/.test(words[0]) ? 2 : 1);
    // The arguments come from stdin: whatever the command changes is unknown.
    const inner = classifySimple({ ...cmd, words, redirects: [] }, cwd, undefined, options);
    return {
      parts: inner.parts.map((p) => (p.category === 'patch' ? unknown(p.op, p.program) : p)),
    };
  }
  const program = words[0];
  const redirectWrites = cmd.redirects
    .filter(
      (r) =>
        r.op !== '<' && r.target !== '/dev/null' && !/^\/dev\/(?:stdout|stderr|tty)/.test(r.target),
    )
    .map((r) => resolve(cwd, r.target));
  const withRedirects = (base: ShellPart[]): Classified => {
    if (redirectWrites.length === 0) return { parts: base };
    const write = part('patch', 'write', redirectWrites, program);
    // Output captured from a verification is written as it runs: verified by the same part.
    return {
      parts: base.some((p) => p.category === 'verify') ? [write, ...base] : [...base, write],
    };
  };
  if (program === undefined) {
    return withRedirects([]);
  }
  if (ENDS.has(program)) return { parts: [] };
  const name = basename(program);
  const args = words.slice(1);
  // Operands, not options nor an option's value (`head -n 50 f`, `cut -d : -f 1 f`).
  const paths = (list: string[]) =>
    list
      .filter(
        (a, k) =>
          !a.startsWith('-') && !/^\d+$/.test(a) && !/^-[nctdfkswABCm]$/.test(list[k - 1] ?? ''),
      )
      .map((a) => resolve(cwd, a));
  // File operations' operands: their flags take no value (`rm -f x`, `mv -f x.bak x`), except
  // the few listed per program (`touch -d date`, `mkdir -m mode`, `cp -t dir`).
  const operands = (list: string[], valued: readonly string[] = []) =>
    list
      .filter((a, k) => !a.startsWith('-') && !valued.includes(list[k - 1] ?? ''))
      .map((a) => resolve(cwd, a));

  if (name === 'cd' || name === 'pushd') {
    const target = args.find((a) => !a.startsWith('-'));
    return { parts: [], cwd: target === undefined || target === '~' ? '' : resolve(cwd, target) };
  }
  if (READERS.has(name)) {
    if (name === 'awk' || name === 'gawk') {
      if (args.some((a) => a === '-i' || a === 'inplace' || a === '-iinplace')) {
        return withRedirects([part('patch', 'edit', paths(args.slice(1)), name)]);
      }
      return withRedirects([part('read', 'read', paths(args.slice(1)), name)]);
    }
    if (name === 'cat' && cmd.stdin !== undefined && redirectWrites.length > 0) {
      return { parts: [part('patch', 'write', redirectWrites, name)] };
    }
    return withRedirects([part(name === 'diff' ? 'read' : 'read', 'read', paths(args), name)]);
  }
  if (name === 'sed') return withRedirects([classifySed(args, cwd)]);
  if (name === 'perl' && args.some((a) => /^-\w*i/.test(a))) {
    return withRedirects([
      part('patch', 'edit', paths(args.filter((_a, i) => i === 0 || !isScriptArg(args, i))), name),
    ]);
  }
  if (SEARCHERS.has(name))
    return withRedirects([part('search', 'search', searchPaths(args, cwd), name)]);
  if (LISTERS.has(name)) {
    if (name === 'find') return withRedirects(classifyFind(args, cwd, options));
    return withRedirects([part('discovery', 'list', paths(args), name)]);
  }
  if (name === 'tee') {
    return { parts: [part('patch', 'write', [...paths(args), ...redirectWrites], name)] };
  }
  if (name === 'touch' || name === 'mkdir') {
    return withRedirects([part('patch', 'write', operands(args, ['-d', '-t', '-r', '-m']), name)]);
  }
  if (name === 'rm' || name === 'rmdir' || name === 'unlink' || name === 'shred') {
    return withRedirects([part('patch', 'delete', operands(args, ['-n', '-u']), name)]);
  }
  if (name === 'cp' || name === 'install' || name === 'rsync') {
    const files = operands(args, ['-S', '-m', '-o', '-g', '-e']);
    const dst = files.at(-1);
    if (dst === undefined) return withRedirects([part('other', 'other', [], name)]);
    const intoDir = args.at(-1)?.endsWith('/') === true || args.includes('-t');
    const targets =
      files.length > 2 || intoDir
        ? files.slice(0, -1).map((f) => posix.join(dst, posix.basename(f)))
        : [dst];
    return withRedirects([part('patch', 'copy', targets, name)]);
  }
  if (name === 'mv') {
    const files = operands(args, ['-S']);
    if (files.length < 2) return withRedirects([unknown('move', name)]);
    const dst = files.at(-1)!;
    const sources = files.slice(0, -1);
    const intoDir = args.at(-1)?.endsWith('/') === true;
    const dest =
      sources.length > 1 || intoDir
        ? sources.map((f) => posix.join(dst, posix.basename(f)))
        : [dst];
    return withRedirects([part('patch', 'move', [...sources, ...dest], name)]);
  }
  if (
    name === 'truncate' ||
    name === 'ed' ||
    name === 'ex' ||
    name === 'dos2unix' ||
    name === 'unix2dos'
  ) {
    return withRedirects([
      part('patch', 'edit', paths(args.filter((_a, i) => !(args[i - 1] === '-s'))), name),
    ]);
  }
  if (name === 'patch' || name === 'apply_patch' || name === 'applypatch') {
    return withRedirects([
      diffPart(cmd.stdin ?? pipedStdin, paths(args.filter((a) => !a.startsWith('-p'))), cwd, name),
    ]);
  }
  if (name === 'git') return withRedirects(classifyGit(args, cwd, cmd.stdin ?? pipedStdin));
  if (FORMATTERS.has(name)) {
    const check = args.some(
      (a) =>
        a === '--check' || a === '--diff' || a === '-l' || a === '--list-different' || a === '-d',
    );
    const rewrites =
      name === '2to3'
        ? args.some((a) => a === '-w')
        : !check || (name === 'gofmt' && args.includes('-w'));
    return withRedirects([
      rewrites ? part('patch', 'edit', paths(args), name) : part('verify', 'test', [], name),
    ]);
  }
  if (name === 'ruff') {
    const fix = args.includes('format') || args.includes('--fix');
    return withRedirects([
      fix ? part('patch', 'edit', paths(args.slice(1)), name) : part('verify', 'test', [], name),
    ]);
  }
  if (name === 'eslint' && args.includes('--fix'))
    return withRedirects([part('patch', 'edit', paths(args), name)]);
  if (
    CHECKERS.has(name) ||
    /^runtests?(?:\.py)?$/.test(name) ||
    (name === 'test' && program.includes('/'))
  ) {
    return withRedirects([part('verify', 'test', [], name)]);
  }
  if (BUILDERS.has(name)) {
    // Goals that neither compile nor test (`mvn dependency:tree`, `gradle tasks`, `-version`).
    const goals = args.filter((a) => !a.startsWith('-'));
    const describes =
      /^(?:mvnw?|gradlew?)$/.test(name) &&
      goals.length > 0 &&
      goals.every((g) =>
        /^(?:clean|dependencies|tasks|projects|properties|help|(?:dependency|help|versions):.*)$/.test(
          g,
        ),
      );
    const versionOnly =
      goals.length === 0 && args.some((a) => /^(?:-v|--version|-version)$/.test(a));
    if (describes || versionOnly) return withRedirects([part('other', 'other', [], name)]);
    const test = args.some(
      (a) =>
        /^(?:test|verify|check|integration-test|surefire:test)$/.test(a) || a.startsWith('-Dtest'),
    );
    return withRedirects([part('verify', test ? 'test' : 'build', [], name)]);
  }
  if (
    (name === 'rake' || name === 'composer') &&
    /^(?:test|spec|phpunit)(?::.*)?$/.test(args[0] ?? '')
  )
    return withRedirects([part('verify', 'test', [], name)]);
  if (name === 'make' || name === 'gmake') {
    const test = args.some((a) => /^(?:test|tests|check|unittest|ci|lint|verify)$/.test(a));
    return withRedirects([part('verify', test ? 'test' : 'build', [], name)]);
  }
  if (name === 'go') {
    const sub = args[0];
    if (sub === 'test' || sub === 'vet') return withRedirects([part('verify', 'test', [], name)]);
    if (sub === 'build' || sub === 'run' || sub === 'install')
      return withRedirects([part('verify', sub === 'run' ? 'run' : 'build', [], name)]);
    if (sub === 'fmt' || sub === 'generate' || sub === 'mod')
      return withRedirects([unknown('edit', name)]);
    return withRedirects([part('other', 'other', [], name)]);
  }
  if (name === 'cargo') {
    const sub = args[0] ?? '';
    if (['test', 'nextest', 'clippy', 'check', 'bench'].includes(sub))
      return withRedirects([part('verify', 'test', [], name)]);
    if (['build', 'run'].includes(sub))
      return withRedirects([part('verify', sub === 'run' ? 'run' : 'build', [], name)]);
    if (sub === 'fmt' || sub === 'fix') return withRedirects([unknown('edit', name)]);
    return withRedirects([part('other', 'other', [], name)]);
  }
  if (['npm', 'pnpm', 'yarn', 'npx', 'bun', 'deno'].includes(name)) {
    return withRedirects(classifyPackageRunner(name, args, cwd, cmd, options));
  }
  if (INTERPRETERS.test(name))
    return withRedirects(classifyInterpreter(name, args, cwd, cmd, pipedStdin, options));
  if (SHELLS.test(name)) {
    const c = args.indexOf('-c');
    if (c !== -1 && args[c + 1] !== undefined)
      return withRedirects(classifyShellCommand(args[c + 1]!, { ...options, cwd }));
    const script = args.find((a) => !a.startsWith('-'));
    if (script === undefined) {
      const body = cmd.stdin ?? pipedStdin;
      return withRedirects(
        body === undefined
          ? [part('other', 'other', [], name)]
          : classifyShellCommand(body, { ...options, cwd }),
      );
    }
    return withRedirects(runScript(resolve(cwd, script), name, options));
  }
  if (EDITORS.test(name)) {
    const [sub = '', file] = args;
    const target = file === undefined ? [] : [resolve(cwd, file)];
    if (sub === 'view') return { parts: [part('read', 'read', target, name)] };
    if (sub === 'create') return { parts: [part('patch', 'write', target, name)] };
    if (['str_replace', 'insert', 'undo_edit', 'edit', 'write', 'append'].includes(sub)) {
      return {
        parts: [target.length > 0 ? part('patch', 'edit', target, name) : unknown('edit', name)],
      };
    }
    return { parts: [part('other', 'other', [], name)] };
  }
  if (ACI_READ.has(name)) {
    const file = name === 'open' ? args.find((a) => !/^\d+$/.test(a)) : options.openFile;
    return { parts: [part('read', 'read', file === undefined ? [] : [resolve(cwd, file)], name)] };
  }
  if (ACI_SEARCH.has(name)) return { parts: [part('search', 'search', [], name)] };
  if (name === 'create' && args.length > 0)
    return { parts: [part('patch', 'write', [resolve(cwd, args[0]!)], name)] };
  if (ACI_EDIT.has(name) && !args.some((a) => a.startsWith('-'))) {
    return {
      parts: [
        options.openFile === undefined
          ? unknown('edit', name)
          : part('patch', 'edit', [options.openFile], name),
      ],
    };
  }
  if (
    name === 'java' ||
    name === 'kotlin' ||
    name === 'scala' ||
    (name === 'dotnet' && args[0] === 'run')
  ) {
    return withRedirects([part('verify', 'run', [], name)]);
  }
  if (OTHER.has(name)) return withRedirects([part('other', 'other', [], name)]);
  // A program named by path (`./reproduce.sh`, `bin/test`, `tests/runtests.py`) is the agent
  // running something: a verification unless its name says it edits.
  if (program.includes('/') || /\.(?:sh|py|js|rb|pl)$/.test(program)) {
    return withRedirects(runScript(resolve(cwd, program), name, options));
  }
  return withRedirects([part('other', 'other', [], name)]);
}

function classifySed(args: string[], cwd: string): ShellPart {
  const inPlace = args.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith('--in-place'));
  const hasScriptOption = args.some(
    (a) => a === '-e' || a === '-f' || a === '--expression' || a === '--file',
  );
  const files: string[] = [];
  let scriptSeen = hasScriptOption;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-e' || a === '-f' || a === '--expression' || a === '--file' || a === '-l') {
      i++;
      continue;
    }
    // `sed -i '' 's/a/b/' f` (BSD sed): the empty backup suffix is not the script.
    if (a.startsWith('-') || (a === '' && /^-[a-zA-Z]*i$/.test(args[i - 1] ?? ''))) continue;
    if (!scriptSeen) {
      scriptSeen = true;
      continue;
    }
    files.push(resolve(cwd, a));
  }
  return inPlace ? part('patch', 'edit', files, 'sed') : part('read', 'read', files, 'sed');
}

function isScriptArg(args: string[], i: number): boolean {
  return (
    args[i - 1] === '-e' || (args[i - 1]?.endsWith('e') === true && args[i - 1]!.startsWith('-'))
  );
}

function searchPaths(args: string[], cwd: string): string[] {
  const rest: string[] = [];
  let patternSeen = args.some((a) => a === '-e' || a === '-f' || a.startsWith('--regexp'));
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (/^-(?:e|f|A|B|C|m|t|g|-include|-exclude|-glob|-type)$/.test(a)) {
      i++;
      continue;
    }
    if (a.startsWith('-')) continue;
    if (!patternSeen) {
      patternSeen = true;
      continue;
    }
    rest.push(resolve(cwd, a));
  }
  return rest;
}

function classifyFind(args: string[], cwd: string, options: ClassifyOptions): ShellPart[] {
  const roots = args
    .filter(
      (a, i) =>
        !a.startsWith('-') &&
        (i === 0 || !args[i - 1]!.startsWith('-')) &&
        !/[()!;{}]/.test(a) &&
        a !== '+',
    )
    .map((a) => resolve(cwd, a));
  // What `find … -name P -delete` (or `-exec rm`) deletes: files named P, when P is scratch
  // (`*.pyc`, `__pycache__`); anything else has targets that cannot be told.
  const named = args.findIndex((a) => a === '-name' || a === '-iname');
  const pattern = named === -1 ? undefined : args[named + 1];
  const scratchDelete =
    pattern !== undefined && isScratchPath(pattern)
      ? [part('patch', 'delete', [pattern], 'find')]
      : undefined;
  if (args.includes('-delete')) return scratchDelete ?? [unknown('delete', 'find')];
  const exec = args.findIndex((a) => a === '-exec' || a === '-execdir' || a === '-ok');
  if (exec !== -1) {
    if (scratchDelete !== undefined && /^(?:rm|rmdir)$/.test(args[exec + 1] ?? ''))
      return scratchDelete;
    const end = args.findIndex((a, i) => i > exec && (a === ';' || a === '+' || a === '\\;'));
    const inner = args
      .slice(exec + 1, end === -1 ? undefined : end)
      .map((a) => (a === '{}' ? '' : a))
      .filter((a) => a !== '');
    const parts = classifySimple(
      { words: inner, redirects: [], depth: 0, statusReported: false },
      cwd,
      undefined,
      options,
    ).parts;
    if (parts.some((p) => p.category === 'patch'))
      return parts.map((p) => (p.category === 'patch' ? unknown(p.op, p.program) : p));
    if (parts.some((p) => p.category === 'search'))
      return [part('search', 'search', roots, 'find')];
  }
  return [part('discovery', 'list', roots, 'find')];
}

function classifyPackageRunner(
  name: string,
  args: string[],
  cwd: string,
  cmd: SimpleCommand,
  options: ClassifyOptions,
): ShellPart[] {
  let rest = args;
  if (name === 'npx' || name === 'bunx') {
    while (rest[0]?.startsWith('-')) rest = rest.slice(1);
    return rest.length === 0
      ? [part('other', 'other', [], name)]
      : classifySimple({ ...cmd, words: rest, redirects: [] }, cwd, undefined, options).parts;
  }
  // Global options before the script: `npm --prefix web test`, `pnpm -F core test`.
  while (rest[0]?.startsWith('-')) {
    const valued = /^(?:--prefix|-C|--dir|--cwd|-F|--filter|-w|--workspace)$/.test(rest[0]);
    rest = rest.slice(valued ? 2 : 1);
  }
  const sub = rest[0] ?? '';
  if (sub === 'exec' || sub === 'dlx' || sub === 'x')
    return classifySimple({ ...cmd, words: rest.slice(1), redirects: [] }, cwd, undefined, options)
      .parts;
  const script = sub === 'run' || sub === 'run-script' ? (rest[1] ?? '') : sub;
  if (
    /^(?:test|tests|t|check|lint|typecheck|type-check|tsc|vitest|jest|e2e|ci|verify|validate|spec)(?::.*)?$/.test(
      script,
    )
  ) {
    return [part('verify', 'test', [], name)];
  }
  if (/^(?:build|compile|bundle|dist)(?::.*)?$/.test(script))
    return [part('verify', 'build', [], name)];
  if (/^(?:format|fmt|fix|lint:fix|prettier)(?::.*)?$/.test(script)) return [unknown('edit', name)];
  if (name === 'deno' && sub === 'run')
    return runScript(resolve(cwd, rest[1] ?? ''), name, options);
  if (name === 'bun' && sub !== 'install' && sub !== 'add' && /\.[jt]sx?$/.test(sub))
    return runScript(resolve(cwd, sub), name, options);
  return [part('other', 'other', [], name)];
}

/**
 * Files a command writes whole from text it carries (`cat > f <<EOF`, `tee f <<EOF`), with
 * that text: the run remembers them to judge a later `python f`.
 */
export function scriptsWritten(command: string, cwd = ''): Map<string, string> {
  const found = new Map<string, string>();
  for (const cmd of simpleCommands(command)) {
    const name = cmd.words[0] === undefined ? undefined : basename(cmd.words[0]);
    if (cmd.stdin === undefined || (name !== 'cat' && name !== 'tee')) continue;
    const targets = [
      ...cmd.redirects.filter((r) => r.op !== '<').map((r) => r.target),
      ...(name === 'tee' ? cmd.words.slice(1).filter((w) => !w.startsWith('-')) : []),
    ];
    for (const t of targets) found.set(resolve(cwd, t), cmd.stdin);
  }
  return found;
}
