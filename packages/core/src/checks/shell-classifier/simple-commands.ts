import { createRequire } from 'node:module';
import type {
  AndOr as AndOrNode,
  Command as CommandAst,
  CommandNode,
  CompoundList,
  PipelineNode,
  Redirection,
  Statement,
} from 'unbash';

type Parse = typeof import('unbash').parse;

let parseBash: Parse | undefined;

/**
 * unbash (17 modules) loaded on the first shell line read, not when @agate/core is imported:
 * most runs never classify a shell command, and every `agate` start paid for it. `require`
 * keeps this function synchronous (Node loads an ES module through require since 22.12).
 */
function parse(text: string): ReturnType<Parse> {
  parseBash ??= (createRequire(import.meta.url)('unbash') as typeof import('unbash')).parse;
  return parseBash(text);
}

/** One output or input redirection of a simple command (`> f`, `2>> log`, `< in`). */
export interface Redirect {
  op: '>' | '>>' | '<';
  target: string;
}

/** One simple command of a shell line, with its words unquoted. */
export interface SimpleCommand {
  words: string[];
  /** The command as written (for matching a declared test command). */
  text?: string;
  redirects: Redirect[];
  /** Body of its `<<` heredoc (or `<<<` here-string), when it has one. */
  stdin?: string;
  /** The operator after it (`&&`, `||`, `;`, `|`, `|&`, `&`), undefined for the last one. */
  next?: string;
  /** Subshell nesting depth, so a `cd` inside `( … )` does not leak out. */
  depth: number;
  /**
   * Whether a failure of this command becomes the exit status of the whole line: false when
   * its output is piped on (`pytest | tail`), when `;` or `||` follows it, in an `if` or
   * `while` condition, or under `!` (`set -e` and `set -o pipefail` are followed).
   */
  statusReported: boolean;
}

/**
 * The simple commands of a shell command line, in the order the shell runs them, read from
 * unbash's bash AST: quotes and escapes removed from words, `$( … )` and backticks kept inside
 * their word (not run here), heredoc bodies attached to their command, compound commands
 * (`if`, loops, `case`, groups, function bodies) flattened in source order, a subshell's
 * commands one level deeper. Never throws: unbash recovers from an unterminated quote or
 * heredoc, and anything it cannot read yields no command.
 */
export function simpleCommands(text: string): SimpleCommand[] {
  let script: ReturnType<typeof parse>;
  try {
    script = parse(text);
  } catch {
    return [];
  }
  const walker = new Walker(text);
  walker.statements(script.commands, 0, true);
  return walker.out;
}

class Walker {
  readonly out: SimpleCommand[] = [];
  // Shell options that decide whose status is the line's (set by `set -e`, `set -o pipefail`).
  private errexit = false;
  private pipefail = false;

  constructor(private readonly source: string) {}

  statements(list: readonly Statement[], depth: number, reported: boolean): void {
    for (const [i, statement] of list.entries()) {
      const last = i === list.length - 1;
      const start = this.out.length;
      this.node(
        statement.command,
        depth,
        reported && !statement.background && (last || this.errexit),
      );
      this.follow(start, statement.background ? '&' : last ? undefined : ';');
    }
  }

  private list(list: CompoundList | undefined, depth: number, reported: boolean): void {
    if (list !== undefined) this.statements(list.commands, depth, reported);
  }

  /** Gives the last command emitted since `start` the operator after it, unless it has one. */
  private follow(start: number, op: string | undefined): void {
    const last = this.out[this.out.length - 1];
    if (
      op !== undefined &&
      this.out.length > start &&
      last !== undefined &&
      last.next === undefined
    )
      last.next = op;
  }

  private node(node: PipelineNode | AndOrNode | CommandNode, depth: number, reported: boolean) {
    switch (node.type) {
      case 'Command':
        this.command(node, depth, reported);
        return;
      case 'AndOr':
        for (const [i, child] of node.commands.entries()) {
          const start = this.out.length;
          // A failure reaches the end only through `&&`: `||` runs something else instead.
          const rest = node.operators.slice(i);
          this.node(child, depth, reported && rest.every((op) => op === '&&'));
          this.follow(start, node.operators[i]);
        }
        return;
      case 'Pipeline': {
        const negated = node.prefixes.some((p) => p.type === 'Negation');
        for (const [i, child] of node.commands.entries()) {
          const start = this.out.length;
          const last = i === node.commands.length - 1;
          this.node(child, depth, reported && !negated && (last || this.pipefail));
          this.follow(start, node.operators[i]);
        }
        return;
      }
      case 'Subshell':
        this.list(node.body, depth + 1, reported);
        return;
      case 'BraceGroup':
        this.list(node.body, depth, reported);
        return;
      case 'If':
        this.list(node.clause, depth, false);
        this.list(node.then, depth, reported);
        for (const elif of node.elif) {
          this.list(elif.clause, depth, false);
          this.list(elif.then, depth, reported);
        }
        this.list(node.else, depth, reported);
        return;
      case 'While':
        this.list(node.clause, depth, false);
        this.list(node.body, depth, reported);
        return;
      case 'For':
      case 'Select':
      case 'ArithmeticFor':
        this.list(node.body, depth, reported);
        return;
      case 'Case':
        for (const item of node.items) this.list(item.body, depth, reported);
        return;
      case 'Function':
        // Defined, not run here; a call of it later runs what it holds, so it is read once.
        this.body(node.body, depth);
        return;
      case 'Coproc':
        this.body(node.body, depth);
        return;
      case 'Redirected': {
        this.node(node.command, depth, reported);
        // `{ …; } > out.txt`: the group's redirections, as a command of their own.
        const own = this.redirections(node.redirects);
        if (own.redirects.length > 0 || own.stdin !== undefined)
          this.out.push({ words: [], ...own, depth, statusReported: false });
        return;
      }
      case 'TestCommand':
        this.out.push({ words: ['[['], redirects: [], depth, statusReported: reported });
        return;
      case 'ArithmeticCommand':
        return;
    }
  }

  private body(body: CommandAst | CommandNode | CompoundList, depth: number): void {
    if (body.type === 'CompoundList') this.list(body, depth, false);
    else this.node(body, depth, false);
  }

  private command(node: CommandAst, depth: number, reported: boolean): void {
    const words: string[] = [];
    const redirections: Redirection[] = [];
    for (const item of [...node.prefix, ...(node.name ? [node.name] : []), ...node.suffix]) {
      if (item.type === 'Word') words.push(item.value);
      else if (item.type === 'Assignment')
        words.push(item.value.type === 'Word' ? `${item.name}=${item.value.value}` : item.text);
      else redirections.push(item);
    }
    this.options(words);
    this.out.push({
      words,
      text: this.source.slice(node.pos, node.end),
      ...this.redirections(redirections),
      depth,
      statusReported: reported,
    });
  }

  private redirections(list: readonly Redirection[]): Pick<SimpleCommand, 'redirects' | 'stdin'> {
    const redirects: Redirect[] = [];
    let stdin: string | undefined;
    for (const r of list) {
      if (r.type === 'HereDoc') {
        const body = r.body.text.replace(/\n$/, '');
        stdin = r.operator === '<<-' ? body.replace(/^\t+/gm, '') : body;
        continue;
      }
      const target = r.target?.value;
      if (target === undefined) continue;
      if (r.type === 'HereString') {
        stdin = target;
        continue;
      }
      switch (r.operator) {
        case '>':
        case '>|':
        case '&>':
          redirects.push({ op: '>', target });
          break;
        case '>>':
        case '&>>':
          redirects.push({ op: '>>', target });
          break;
        case '<':
        case '<>':
          redirects.push({ op: '<', target });
          break;
        case '>&':
          // `2>&1`, `>&-`: a descriptor, not a file; `>& log` (no descriptor number) is a file.
          if (!/^(?:\d+|-)$/.test(target) && r.descriptor === undefined)
            redirects.push({ op: '>', target });
          break;
        case '<&':
          break;
      }
    }
    return { redirects, ...(stdin !== undefined ? { stdin } : {}) };
  }

  /** Follows `set -e` and `set -o pipefail`, which decide whose failure ends the line. */
  private options(words: readonly string[]): void {
    if (words[0] !== 'set') return;
    for (const [i, w] of words.entries()) {
      if (/^-[a-zA-Z]*e/.test(w)) this.errexit = true;
      if ((w === '-o' || /^-[a-zA-Z]*o$/.test(w)) && words[i + 1] === 'errexit')
        this.errexit = true;
      if ((w === '-o' || /^-[a-zA-Z]*o$/.test(w)) && words[i + 1] === 'pipefail')
        this.pipefail = true;
    }
  }
}
