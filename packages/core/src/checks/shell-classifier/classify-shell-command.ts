import { type Classified, otherCommand, ruleFor, type WordsContext } from './program-rules.js';
import { ENDS } from './programs.js';
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

/** One simple command's parts, by the first row of the program table that matches it. */
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
  if (program === undefined)
    return redirectWrites.length === 0
      ? { parts: [] }
      : {
          parts: [part('patch', 'write', redirectWrites, program)],
        };
  if (ENDS.has(program)) return { parts: [] };
  const context: WordsContext = {
    cmd,
    cwd,
    pipedStdin,
    options,
    program,
    name: basename(program),
    args: words.slice(1),
    redirectWrites,
    again: (inner, at) => classifySimple(inner, at, undefined, options),
    line: (text, at) => classifyShellCommand(text, { ...options, cwd: at }),
  };
  return (ruleFor(context)?.classify ?? otherCommand)(context);
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
