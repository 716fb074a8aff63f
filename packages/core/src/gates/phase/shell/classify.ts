import { posix } from 'node:path';
import type { ToolCategory } from '../category.js';
import { isScratchPath } from '../scratch.js';
import { scriptEffects } from './script-writes.js';
import { type SimpleCommand, splitShellCommand } from './split.js';

/** What one part of a shell command does. */
export type ShellOp =
  | 'read'
  | 'search'
  | 'list'
  | 'write'
  | 'edit'
  | 'delete'
  | 'move'
  | 'copy'
  | 'restore'
  | 'stash'
  | 'unstash'
  | 'test'
  | 'run'
  | 'build'
  | 'other';

/** One part of a shell command, in the order the shell runs them. */
export interface ShellPart {
  category: ToolCategory;
  op: ShellOp;
  /**
   * Files it touches, resolved against any `cd` before it in the same command (relative paths
   * stay relative). For `move`, the sources then the destination.
   */
  paths: string[];
  /** A change whose targets cannot be told (a script that rewrites files, `git stash`). */
  unknownTargets?: true;
  /** The program, for messages and for judging whether a verification ran (`pytest`). */
  program?: string;
}

export interface ClassifyOptions {
  /** Contents of scripts written earlier in the run (path → source), to tell fix scripts from tests. */
  scripts?: ReadonlyMap<string, string>;
  /** Working directory the command starts in (default: the workspace root, `''`). */
  cwd?: string;
  /** The file an editor-style agent has open (SWE-agent's `open`), for its `edit` commands. */
  openFile?: string;
}

// SWE-agent's own commands, typed into its shell: file viewer, search and edit.
const ACI_READ = new Set(['open', 'goto', 'scroll_up', 'scroll_down']);
const ACI_SEARCH = new Set(['search_dir', 'search_file', 'find_file']);
const ACI_EDIT = new Set(['edit', 'insert', 'append']);
/** Text-editor tools typed as commands (`str_replace_editor view /repo/a.py`). */
const EDITORS =
  /^(?:str_replace_editor|str_replace_based_edit_tool|text_editor|file_editor|edit_tool)$/;

const READERS = new Set([
  'cat',
  'head',
  'tail',
  'less',
  'more',
  'nl',
  'wc',
  'file',
  'stat',
  'strings',
  'xxd',
  'od',
  'hexdump',
  'diff',
  'cmp',
  'jq',
  'bat',
  'readlink',
  'realpath',
  'md5sum',
  'sha256sum',
  'cut',
  'sort',
  'uniq',
  'column',
  'awk',
  'gawk',
  'view',
  'pygmentize',
  'colordiff',
  'tac',
  'rev',
]);
const SEARCHERS = new Set([
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'ag',
  'ack',
  'zgrep',
  'sgrep',
  'ast-grep',
]);
const LISTERS = new Set([
  'ls',
  'find',
  'fd',
  'tree',
  'pwd',
  'du',
  'df',
  'which',
  'whereis',
  'type',
  'locate',
  'dir',
  'whoami',
  'uname',
  'env',
  'printenv',
  'id',
  'hostname',
  'date',
]);
const OTHER = new Set([
  'echo',
  'printf',
  'true',
  'false',
  'cd',
  'pushd',
  'popd',
  'export',
  'unset',
  'set',
  'source',
  '.',
  'sleep',
  'clear',
  'exit',
  'return',
  'alias',
  'history',
  'wait',
  'kill',
  'ps',
  'pip',
  'pip3',
  'conda',
  'apt',
  'apt-get',
  'yum',
  'brew',
  'npm-install',
  'read',
  'local',
  'declare',
  'trap',
  'shift',
  'break',
  'continue',
  'eval',
  'exec',
  'ulimit',
  'umask',
  'chmod',
  'chown',
  'ln',
  'tar',
  'unzip',
  'gzip',
  'gunzip',
  'zip',
  'curl',
  'wget',
  'ssh',
  'docker',
  'kill',
  'xdg-open',
]);
/** Wrappers whose real command follows them (after their own options). */
const WRAPPERS = new Set([
  'sudo',
  'time',
  'nohup',
  'nice',
  'stdbuf',
  'command',
  'builtin',
  'exec',
  'unbuffer',
]);
const KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', '!', '{', '}']);
const ENDS = new Set(['fi', 'done', 'esac', '}', 'for', 'case', 'function', 'select']);
/** Linters, type checkers and test runners that need no subcommand to be a verification. */
const CHECKERS = new Set([
  'pytest',
  'py.test',
  'tox',
  'nox',
  'jest',
  'vitest',
  'mocha',
  'ava',
  'tap',
  'jasmine',
  'karma',
  'tsc',
  'mypy',
  'pyright',
  'flake8',
  'pylint',
  'pyflakes',
  'pycodestyle',
  'bandit',
  'eslint',
  'phpunit',
  'rspec',
  'ctest',
  'pytest-3',
  'trial',
  'nosetests',
  'nose2',
  'behave',
  'cucumber',
  'shellcheck',
  'hadolint',
  'stylelint',
  'golangci-lint',
  'staticcheck',
  'clippy',
  'ava',
  'runtests',
  'bats',
  'prove',
  'busted',
  'deno-test',
  'playwright',
  'cypress',
]);
const BUILDERS = new Set([
  'mvn',
  'mvnw',
  'gradle',
  'gradlew',
  'ant',
  'sbt',
  'javac',
  'gcc',
  'g++',
  'clang',
  'clang++',
  'cmake',
  'ninja',
  'bazel',
  'buck',
  'msbuild',
  'dotnet',
  'swift',
  'swiftc',
  'rustc',
  'kotlinc',
  'scalac',
  'sphinx-build',
  'webpack',
  'rollup',
  'esbuild',
  'vite',
  'lake',
  'zig',
]);
/** Formatters that rewrite files unless asked only to check. */
const FORMATTERS = new Set([
  'black',
  'isort',
  'autopep8',
  'yapf',
  'prettier',
  'gofmt',
  'rustfmt',
  'clang-format',
  'autoflake',
  'pyupgrade',
  '2to3',
]);
const INTERPRETERS =
  /^(?:python[\d.]*|pypy[\d.]*|node|nodejs|deno|bun|ruby|perl|php|Rscript|julia|lua|tsx|ts-node)$/;
const SHELLS = /^(?:bash|sh|zsh|dash|ksh)$/;
const TEST_SCRIPT =
  /^(?:test|tests|reproduce|repro|reproduction|debug|check|verify|validate|demo|example|run|try|inspect|show|print|trace|bench|sanity|smoke|probe|confirm|investigate|explore|minimal|mre|issue|bug)/i;
const FIX_SCRIPT =
  /(?:^|[_\-.])(?:apply|fix|fixes|patch|patches|modify|update|edit|rewrite|replace|change|insert|refactor|cleanup|clean|remove|add|restore|revert|implement|transform|migrate|convert|inject|sed|codemod)(?:[_\-.\d]|$)/i;
const SOURCE_EXT =
  /\.(?:py|pyi|pyx|js|jsx|mjs|cjs|ts|tsx|java|kt|scala|go|rs|rb|php|c|cc|cpp|h|hpp|cs|swift|m|sh|pl|lua|r|jl|ex|exs|clj|hs|ml|vue|svelte)$/i;

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
  const commands = splitShellCommand(text);
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
    parts.push(...result.parts);
    previousStdin = cmd.stdin;
  }
  return parts;
}

interface Classified {
  parts: ShellPart[];
  cwd?: string;
}

function classifySimple(
  cmd: SimpleCommand,
  cwd: string,
  pipedStdin: string | undefined,
  options: ClassifyOptions,
): Classified {
  let words = cmd.words;
  // Keywords (`if`, `then`, `do`, …), env assignments and wrappers come before the real command.
  for (;;) {
    const w = words[0];
    if (w === undefined) break;
    if (KEYWORDS.has(w) || /^[A-Za-z_]\w*=/.test(w)) words = words.slice(1);
    else if (WRAPPERS.has(w)) words = words.slice(1);
    else if (w === 'timeout' || w === 'gtimeout') {
      words = words.slice(1);
      while (words[0]?.startsWith('-')) words = words.slice(1);
      words = words.slice(1); // the duration
    } else if (w === 'env') {
      words = words.slice(1);
      while (words[0] !== undefined && (words[0].startsWith('-') || words[0].includes('=')))
        words = words.slice(1);
      if (words.length === 0) return { parts: [part('discovery', 'list', [])] };
    } else if (w === 'xargs') {
      words = words.slice(1);
      while (words[0]?.startsWith('-')) words = words.slice(/^-[InLPd]$/.test(words[0]) ? 2 : 1);
      // The arguments come from stdin: whatever the command changes is unknown.
      const inner = classifySimple({ ...cmd, words, redirects: [] }, cwd, undefined, options);
      return {
        parts: inner.parts.map((p) => (p.category === 'patch' ? unknown(p.op, p.program) : p)),
      };
    } else break;
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
    return withRedirects([part('patch', 'write', paths(args), name)]);
  }
  if (name === 'rm' || name === 'rmdir' || name === 'unlink' || name === 'shred') {
    return withRedirects([part('patch', 'delete', paths(args), name)]);
  }
  if (name === 'cp' || name === 'install' || name === 'rsync') {
    const files = paths(args);
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
    const files = paths(args);
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
    const test = args.some(
      (a) =>
        /^(?:test|verify|check|integration-test|surefire:test)$/.test(a) || a.startsWith('-Dtest'),
    );
    return withRedirects([part('verify', test ? 'test' : 'build', [], name)]);
  }
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
      { words: inner, redirects: [], depth: 0 },
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

function classifyGit(args: string[], cwd: string, stdin: string | undefined): ShellPart[] {
  // Options before the subcommand (`git -C dir`, `git --no-pager`).
  let i = 0;
  let dir = cwd;
  while (i < args.length && args[i]!.startsWith('-')) {
    if (args[i] === '-C') {
      dir = resolve(cwd, args[i + 1] ?? '');
      i += 2;
    } else if (args[i] === '-c') i += 2;
    else i++;
  }
  const sub = args[i] ?? '';
  const rest = args.slice(i + 1);
  const files = rest.filter((a) => !a.startsWith('-'));
  switch (sub) {
    case 'status':
    case 'log':
    case 'branch':
    case 'remote':
    case 'tag':
    case 'ls-files':
    case 'rev-parse':
    case 'reflog':
    case 'config':
      return [part('discovery', 'list', [], 'git')];
    case 'diff':
    case 'show':
    case 'blame':
    case 'cat-file':
      return [part('discovery', 'read', [], 'git')];
    case 'grep':
      return [part('search', 'search', [], 'git')];
    case 'apply':
    case 'am':
      if (rest.includes('--check') || rest.includes('--stat'))
        return [part('read', 'read', [], 'git')];
      return [
        diffPart(
          stdin,
          files.map((f) => resolve(dir, f)),
          dir,
          'git',
        ),
      ];
    case 'checkout':
    case 'restore': {
      const dash = rest.indexOf('--');
      const targets =
        dash !== -1
          ? rest.slice(dash + 1)
          : files.filter((f) => f.includes('/') || f.includes('.'));
      // `git checkout .` / `git restore .`: every tracked file back as committed.
      if (
        targets.length === 1 &&
        targets[0] === '.' &&
        dash <= 0 &&
        !rest.some((a) => a.startsWith('--source'))
      ) {
        return [part('patch', 'restore', [], 'git')];
      }
      if (targets.length === 0 || targets.includes('.')) return [unknown('edit', 'git')];
      // Back to the committed state: `restore`, which undoes the run's changes to them.
      const source = rest.some(
        (a) => a === '--source' || a.startsWith('--source=') || /^-\w*s$/.test(a),
      );
      const fromCommit =
        dash > 0 && rest.slice(0, dash).some((a) => !a.startsWith('-') && a !== 'HEAD');
      return [
        part(
          'patch',
          source || fromCommit ? 'edit' : 'restore',
          targets.map((f) => resolve(dir, f)),
          'git',
        ),
      ];
    }
    case 'rm':
    case 'mv':
      return [
        part(
          'patch',
          sub === 'rm' ? 'delete' : 'move',
          files.map((f) => resolve(dir, f)),
          'git',
        ),
      ];
    case 'stash':
      if (rest[0] === 'list' || rest[0] === 'show') return [part('discovery', 'list', [], 'git')];
      // `git stash` puts the changes away, `git stash pop` brings back exactly those.
      if (rest[0] === 'pop' || rest[0] === 'apply') return [{ ...unknown('unstash', 'git') }];
      if (
        rest[0] === undefined ||
        rest[0] === 'push' ||
        rest[0] === 'save' ||
        rest[0].startsWith('-')
      )
        return [unknown('stash', 'git')];
      return [unknown('edit', 'git')];
    case 'reset':
      return rest.includes('--hard') && !rest.some((a) => !a.startsWith('-') && a !== 'HEAD')
        ? [part('patch', 'restore', [], 'git')]
        : rest.includes('--hard')
          ? [unknown('edit', 'git')]
          : [part('other', 'other', [], 'git')];
    case 'merge':
    case 'rebase':
    case 'cherry-pick':
    case 'revert':
    case 'pull':
    case 'switch':
    case 'clean':
      return [unknown(sub === 'clean' ? 'delete' : 'edit', 'git')];
    default:
      return [part('other', 'other', [], 'git')];
  }
}

/** `patch`, `git apply`: the files named in the diff when it is in the command, else unknown. */
function diffPart(
  diff: string | undefined,
  named: string[],
  cwd: string,
  program: string,
): ShellPart {
  const targets = new Set<string>();
  if (diff !== undefined) {
    for (const m of diff.matchAll(/^\+\+\+ (?:[ab]\/)?(\S+)/gm))
      if (m[1] !== '/dev/null') targets.add(resolve(cwd, m[1]!));
    for (const m of diff.matchAll(/^--- (?:a\/)?(\S+)/gm))
      if (m[1] !== '/dev/null') targets.add(resolve(cwd, m[1]!));
    for (const m of diff.matchAll(/^\*\*\* (?:Update|Add|Delete) File: (.+)$/gm))
      targets.add(resolve(cwd, m[1]!.trim()));
  }
  if (targets.size > 0) return part('patch', 'edit', [...targets], program);
  // `patch file.py fix.diff` names its target; `patch -p1 < x.diff` does not.
  if (program === 'patch' && named.length > 0 && SOURCE_EXT.test(named[0]!))
    return part('patch', 'edit', [named[0]!], program);
  return unknown('edit', program);
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

function classifyInterpreter(
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
function inlineCode(code: string, cwd: string, program: string): ShellPart[] {
  const effects = scriptEffects(code);
  if (!effects.writes) return [part('verify', 'run', [], program)];
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
function runScript(path: string, program: string, options: ClassifyOptions): ShellPart[] {
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

function part(category: ToolCategory, op: ShellOp, paths: string[], program?: string): ShellPart {
  // '' is the workspace root (`find .`): a place, not a file.
  return {
    category,
    op,
    paths: paths.filter((p) => p !== ''),
    ...(program !== undefined ? { program } : {}),
  };
}

function unknown(op: ShellOp, program?: string): ShellPart {
  return {
    category: 'patch',
    op,
    paths: [],
    unknownTargets: true,
    ...(program !== undefined ? { program } : {}),
  };
}

function basename(p: string): string {
  return posix.basename(p);
}

/** A path against the command's working directory, normalized (`./a/../b` → `b`). */
export function resolve(cwd: string, path: string): string {
  if (path.startsWith('~')) return path;
  const joined = path.startsWith('/') || cwd === '' ? path : `${cwd}/${path}`;
  const normal = posix.normalize(joined);
  return normal === '.' ? '' : normal.replace(/^\.\//, '').replace(/\/$/, '') || normal;
}

/**
 * Files a command writes whole from text it carries (`cat > f <<EOF`, `tee f <<EOF`), with
 * that text: the run remembers them to judge a later `python f`.
 */
export function scriptsWritten(command: string, cwd = ''): Map<string, string> {
  const found = new Map<string, string>();
  for (const cmd of splitShellCommand(command)) {
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
