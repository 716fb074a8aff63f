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
  FORMATTERS,
  INTERPRETERS,
  LISTERS,
  OTHER,
  READERS,
  SEARCHERS,
  SHELLS,
} from './programs.js';
import { type ClassifyOptions, part, resolve, type ShellPart, unknown } from './shell-part.js';
import type { SimpleCommand } from './simple-commands.js';

/** One simple command's parts, and the directory a `cd` moved to. */
export interface Classified {
  parts: ShellPart[];
  cwd?: string;
}

/** What a rule reads of one simple command (wrappers such as `sudo`, `timeout` stripped). */
export interface WordsContext {
  cmd: SimpleCommand;
  cwd: string;
  /** The text piped in from the previous command's heredoc, if any. */
  pipedStdin: string | undefined;
  options: ClassifyOptions;
  /** The program as typed (`./run.sh`, `/usr/bin/python3`). */
  program: string;
  /** Its base name (`run.sh`, `python3`). */
  name: string;
  args: string[];
  /** Files the command's output redirections write. */
  redirectWrites: string[];
  /** Classifies a command found inside this one (`npx X`, `find -exec X`). */
  again(cmd: SimpleCommand, cwd: string): Classified;
  /** Classifies a command line found inside this one (`sh -c '…'`, a script on stdin). */
  line(text: string, cwd: string): ShellPart[];
}

/**
 * A row of the table: the programs it is for (names, a set, or a pattern of names), an extra
 * condition on the arguments, and what the command is.
 */
interface ProgramRule {
  programs: ReadonlySet<string> | RegExp | ((c: WordsContext) => boolean);
  when?: (c: WordsContext) => boolean;
  classify: (c: WordsContext) => Classified;
}

const names = (...list: string[]): ReadonlySet<string> => new Set(list);

/** Operands, not options nor an option's value (`head -n 50 f`, `cut -d : -f 1 f`). */
function paths(c: WordsContext, list: string[]): string[] {
  return list
    .filter(
      (a, k) =>
        !a.startsWith('-') && !/^\d+$/.test(a) && !/^-[nctdfkswABCm]$/.test(list[k - 1] ?? ''),
    )
    .map((a) => resolve(c.cwd, a));
}

/**
 * File operations' operands: their flags take no value (`rm -f x`, `mv -f x.bak x`), except
 * the few listed per program (`touch -d date`, `mkdir -m mode`, `cp -t dir`).
 */
function operands(c: WordsContext, list: string[], valued: readonly string[] = []): string[] {
  return list
    .filter((a, k) => !a.startsWith('-') && !valued.includes(list[k - 1] ?? ''))
    .map((a) => resolve(c.cwd, a));
}

/** The command's parts with what its redirections write. */
export function withRedirects(c: WordsContext, base: ShellPart[]): Classified {
  if (c.redirectWrites.length === 0) return { parts: base };
  const write = part('patch', 'write', c.redirectWrites, c.program);
  // Output captured from a verification is written as it runs: verified by the same part.
  return {
    parts: base.some((p) => p.category === 'verify') ? [write, ...base] : [...base, write],
  };
}

/** `withRedirects` of one part. */
const one = (c: WordsContext, p: ShellPart): Classified => withRedirects(c, [p]);
const verifies = (op: 'test' | 'build' | 'run') => (c: WordsContext) =>
  one(c, part('verify', op, [], c.name));
const other = (c: WordsContext) => one(c, part('other', 'other', [], c.name));

/** The first row that matches a command says what it is; order matters where rows overlap. */
export const PROGRAM_RULES: readonly ProgramRule[] = [
  {
    programs: names('cd', 'pushd'),
    classify: ({ args, cwd }) => {
      const target = args.find((a) => !a.startsWith('-'));
      return {
        parts: [],
        cwd: target === undefined || target === '~' ? '' : resolve(cwd, target),
      };
    },
  },
  { programs: READERS, classify: classifyReader },
  { programs: names('sed'), classify: (c) => one(c, classifySed(c.args, c.cwd)) },
  {
    programs: names('perl'),
    when: ({ args }) => args.some((a) => /^-\w*i/.test(a)),
    classify: (c) =>
      one(
        c,
        part(
          'patch',
          'edit',
          paths(
            c,
            c.args.filter((_a, i) => i === 0 || !isScriptArg(c.args, i)),
          ),
          c.name,
        ),
      ),
  },
  {
    programs: SEARCHERS,
    classify: (c) => one(c, part('search', 'search', searchPaths(c.args, c.cwd), c.name)),
  },
  {
    programs: LISTERS,
    classify: (c) =>
      c.name === 'find'
        ? withRedirects(c, classifyFind(c))
        : one(c, part('discovery', 'list', paths(c, c.args), c.name)),
  },
  {
    programs: names('tee'),
    classify: (c) => ({
      parts: [part('patch', 'write', [...paths(c, c.args), ...c.redirectWrites], c.name)],
    }),
  },
  {
    programs: names('touch', 'mkdir'),
    classify: (c) =>
      one(c, part('patch', 'write', operands(c, c.args, ['-d', '-t', '-r', '-m']), c.name)),
  },
  {
    programs: names('rm', 'rmdir', 'unlink', 'shred'),
    classify: (c) => one(c, part('patch', 'delete', operands(c, c.args, ['-n', '-u']), c.name)),
  },
  { programs: names('cp', 'install', 'rsync'), classify: classifyCopy },
  { programs: names('mv'), classify: classifyMove },
  {
    programs: names('truncate', 'ed', 'ex', 'dos2unix', 'unix2dos'),
    classify: (c) =>
      one(
        c,
        part(
          'patch',
          'edit',
          paths(
            c,
            c.args.filter((_a, i) => !(c.args[i - 1] === '-s')),
          ),
          c.name,
        ),
      ),
  },
  {
    programs: names('patch', 'apply_patch', 'applypatch'),
    classify: (c) =>
      one(
        c,
        diffPart(
          c.cmd.stdin ?? c.pipedStdin,
          paths(
            c,
            c.args.filter((a) => !a.startsWith('-p')),
          ),
          c.cwd,
          c.name,
        ),
      ),
  },
  {
    programs: names('git'),
    classify: (c) => withRedirects(c, classifyGit(c.args, c.cwd, c.cmd.stdin ?? c.pipedStdin)),
  },
  { programs: FORMATTERS, classify: classifyFormatter },
  {
    programs: names('ruff'),
    classify: (c) => {
      const fix = c.args.includes('format') || c.args.includes('--fix');
      return one(
        c,
        fix
          ? part('patch', 'edit', paths(c, c.args.slice(1)), c.name)
          : part('verify', 'test', [], c.name),
      );
    },
  },
  {
    programs: names('eslint'),
    when: ({ args }) => args.includes('--fix'),
    classify: (c) => one(c, part('patch', 'edit', paths(c, c.args), c.name)),
  },
  {
    programs: ({ name, program }) =>
      CHECKERS.has(name) ||
      /^runtests?(?:\.py)?$/.test(name) ||
      (name === 'test' && program.includes('/')),
    classify: verifies('test'),
  },
  { programs: BUILDERS, classify: classifyBuilder },
  {
    programs: names('rake', 'composer'),
    when: ({ args }) => /^(?:test|spec|phpunit)(?::.*)?$/.test(args[0] ?? ''),
    classify: verifies('test'),
  },
  {
    programs: names('make', 'gmake'),
    classify: (c) =>
      c.args.some((a) => /^(?:test|tests|check|unittest|ci|lint|verify)$/.test(a))
        ? verifies('test')(c)
        : verifies('build')(c),
  },
  { programs: names('go'), classify: classifyGo },
  { programs: names('cargo'), classify: classifyCargo },
  {
    programs: names('npm', 'pnpm', 'yarn', 'npx', 'bun', 'deno'),
    classify: (c) => withRedirects(c, classifyPackageRunner(c)),
  },
  {
    programs: INTERPRETERS,
    classify: (c) =>
      withRedirects(c, classifyInterpreter(c.name, c.args, c.cwd, c.cmd, c.pipedStdin, c.options)),
  },
  { programs: SHELLS, classify: classifyShell },
  { programs: EDITORS, classify: classifyEditorTool },
  {
    programs: ACI_READ,
    classify: ({ name, args, cwd, options }) => {
      const file = name === 'open' ? args.find((a) => !/^\d+$/.test(a)) : options.openFile;
      return {
        parts: [part('read', 'read', file === undefined ? [] : [resolve(cwd, file)], name)],
      };
    },
  },
  {
    programs: ACI_SEARCH,
    classify: ({ name }) => ({ parts: [part('search', 'search', [], name)] }),
  },
  {
    programs: names('create'),
    when: ({ args }) => args.length > 0,
    classify: ({ name, args, cwd }) => ({
      parts: [part('patch', 'write', [resolve(cwd, args[0]!)], name)],
    }),
  },
  {
    programs: ACI_EDIT,
    when: ({ args }) => !args.some((a) => a.startsWith('-')),
    classify: ({ name, options }) => ({
      parts: [
        options.openFile === undefined
          ? unknown('edit', name)
          : part('patch', 'edit', [options.openFile], name),
      ],
    }),
  },
  {
    programs: ({ name, args }) =>
      name === 'java' ||
      name === 'kotlin' ||
      name === 'scala' ||
      (name === 'dotnet' && args[0] === 'run'),
    classify: verifies('run'),
  },
  { programs: OTHER, classify: other },
  {
    // A program named by path (`./reproduce.sh`, `bin/test`, `tests/runtests.py`) is the agent
    // running something: a verification unless its name says it edits.
    programs: ({ program }) => program.includes('/') || /\.(?:sh|py|js|rb|pl)$/.test(program),
    classify: (c) => withRedirects(c, runScript(resolve(c.cwd, c.program), c.name, c.options)),
  },
];

/** The row for a command, if any (none: `other`). */
export function ruleFor(c: WordsContext): ProgramRule | undefined {
  return PROGRAM_RULES.find((rule) => {
    const { programs } = rule;
    const named =
      programs instanceof RegExp
        ? programs.test(c.name)
        : typeof programs === 'function'
          ? programs(c)
          : programs.has(c.name);
    return named && (rule.when === undefined || rule.when(c));
  });
}

/** A command no row knows. */
export const otherCommand = other;

function classifyReader(c: WordsContext): Classified {
  const { name, args, cmd } = c;
  if (name === 'awk' || name === 'gawk') {
    if (args.some((a) => a === '-i' || a === 'inplace' || a === '-iinplace')) {
      return one(c, part('patch', 'edit', paths(c, args.slice(1)), name));
    }
    return one(c, part('read', 'read', paths(c, args.slice(1)), name));
  }
  if (name === 'cat' && cmd.stdin !== undefined && c.redirectWrites.length > 0) {
    return { parts: [part('patch', 'write', c.redirectWrites, name)] };
  }
  return one(c, part('read', 'read', paths(c, args), name));
}

function classifyCopy(c: WordsContext): Classified {
  const { args, name } = c;
  const files = operands(c, args, ['-S', '-m', '-o', '-g', '-e']);
  const dst = files.at(-1);
  if (dst === undefined) return other(c);
  const intoDir = args.at(-1)?.endsWith('/') === true || args.includes('-t');
  const targets =
    files.length > 2 || intoDir
      ? files.slice(0, -1).map((f) => posix.join(dst, posix.basename(f)))
      : [dst];
  return one(c, part('patch', 'copy', targets, name));
}

function classifyMove(c: WordsContext): Classified {
  const { args, name } = c;
  const files = operands(c, args, ['-S']);
  if (files.length < 2) return one(c, unknown('move', name));
  const dst = files.at(-1)!;
  const sources = files.slice(0, -1);
  const intoDir = args.at(-1)?.endsWith('/') === true;
  const dest =
    sources.length > 1 || intoDir ? sources.map((f) => posix.join(dst, posix.basename(f))) : [dst];
  return one(c, part('patch', 'move', [...sources, ...dest], name));
}

function classifyFormatter(c: WordsContext): Classified {
  const { args, name } = c;
  const check = args.some(
    (a) =>
      a === '--check' || a === '--diff' || a === '-l' || a === '--list-different' || a === '-d',
  );
  const rewrites =
    name === '2to3'
      ? args.some((a) => a === '-w')
      : !check || (name === 'gofmt' && args.includes('-w'));
  return one(
    c,
    rewrites ? part('patch', 'edit', paths(c, args), name) : part('verify', 'test', [], name),
  );
}

function classifyBuilder(c: WordsContext): Classified {
  const { args, name } = c;
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
  const versionOnly = goals.length === 0 && args.some((a) => /^(?:-v|--version|-version)$/.test(a));
  if (describes || versionOnly) return other(c);
  const test = args.some(
    (a) =>
      /^(?:test|verify|check|integration-test|surefire:test)$/.test(a) || a.startsWith('-Dtest'),
  );
  return verifies(test ? 'test' : 'build')(c);
}

function classifyGo(c: WordsContext): Classified {
  const sub = c.args[0];
  if (sub === 'test' || sub === 'vet') return verifies('test')(c);
  if (sub === 'build' || sub === 'run' || sub === 'install')
    return verifies(sub === 'run' ? 'run' : 'build')(c);
  if (sub === 'fmt' || sub === 'generate' || sub === 'mod') return one(c, unknown('edit', c.name));
  return other(c);
}

function classifyCargo(c: WordsContext): Classified {
  const sub = c.args[0] ?? '';
  if (['test', 'nextest', 'clippy', 'check', 'bench'].includes(sub)) return verifies('test')(c);
  if (['build', 'run'].includes(sub)) return verifies(sub === 'run' ? 'run' : 'build')(c);
  if (sub === 'fmt' || sub === 'fix') return one(c, unknown('edit', c.name));
  return other(c);
}

function classifyShell(c: WordsContext): Classified {
  const { args, name, cwd, cmd } = c;
  const flag = args.indexOf('-c');
  if (flag !== -1 && args[flag + 1] !== undefined)
    return withRedirects(c, c.line(args[flag + 1]!, cwd));
  const script = args.find((a) => !a.startsWith('-'));
  if (script === undefined) {
    const body = cmd.stdin ?? c.pipedStdin;
    return withRedirects(
      c,
      body === undefined ? [part('other', 'other', [], name)] : c.line(body, cwd),
    );
  }
  return withRedirects(c, runScript(resolve(cwd, script), name, c.options));
}

/** SWE-agent's and OpenHands' editor tools (`str_replace_editor view|create|str_replace …`). */
function classifyEditorTool(c: WordsContext): Classified {
  const { args, name, cwd } = c;
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

function classifyFind(c: WordsContext): ShellPart[] {
  const { args, cwd } = c;
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
    const parts = c.again(
      { words: inner, redirects: [], depth: 0, statusReported: false },
      cwd,
    ).parts;
    if (parts.some((p) => p.category === 'patch'))
      return parts.map((p) => (p.category === 'patch' ? unknown(p.op, p.program) : p));
    if (parts.some((p) => p.category === 'search'))
      return [part('search', 'search', roots, 'find')];
  }
  return [part('discovery', 'list', roots, 'find')];
}

function classifyPackageRunner(c: WordsContext): ShellPart[] {
  const { name, args, cwd, cmd, options } = c;
  let rest = args;
  if (name === 'npx' || name === 'bunx') {
    while (rest[0]?.startsWith('-')) rest = rest.slice(1);
    return rest.length === 0
      ? [part('other', 'other', [], name)]
      : c.again({ ...cmd, words: rest, redirects: [] }, cwd).parts;
  }
  // Global options before the script: `npm --prefix web test`, `pnpm -F core test`.
  while (rest[0]?.startsWith('-')) {
    const valued = /^(?:--prefix|-C|--dir|--cwd|-F|--filter|-w|--workspace)$/.test(rest[0]);
    rest = rest.slice(valued ? 2 : 1);
  }
  const sub = rest[0] ?? '';
  if (sub === 'exec' || sub === 'dlx' || sub === 'x')
    return c.again({ ...cmd, words: rest.slice(1), redirects: [] }, cwd).parts;
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
