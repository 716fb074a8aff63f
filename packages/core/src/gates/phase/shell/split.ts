/** One output or input redirection of a simple command (`> f`, `2>> log`, `< in`). */
export interface Redirect {
  op: '>' | '>>' | '<';
  target: string;
}

/** One simple command of a shell line, with its words unquoted. */
export interface SimpleCommand {
  words: string[];
  redirects: Redirect[];
  /** Body of its `<<` heredoc (or `<<<` here-string), when it has one. */
  stdin?: string;
  /** The operator after it (`&&`, `||`, `;`, `|`, `&`, newline), undefined for the last one. */
  next?: string;
  /** Subshell / group nesting depth, so a `cd` inside `( … )` does not leak out. */
  depth: number;
}

const OPERATORS = ['&&', '||', ';;', '|&', ';', '|', '&'];

/**
 * Splits a shell command line into simple commands on `&&`, `||`, `;`, `|`, `&` and newlines,
 * the way a POSIX shell would read it: quotes, escapes, `$( … )` and backticks stay inside
 * their word, heredoc bodies are attached to their command instead of being read as commands,
 * `( … )` and `{ …; }` groups are flattened (with their depth), comments are dropped.
 * Never throws: an unterminated quote or heredoc just ends at the end of the text.
 */
export function splitShellCommand(text: string): SimpleCommand[] {
  const out: SimpleCommand[] = [];
  let depth = 0;
  let cmd = fresh(depth);
  let word: string | undefined;
  let pendingRedirect: Redirect['op'] | 'heredoc' | 'heredoc-strip' | 'herestring' | undefined;
  const heredocs: Array<{ cmd: SimpleCommand; delim: string; strip: boolean }> = [];
  let i = 0;
  const n = text.length;

  const endWord = () => {
    if (word === undefined) return;
    const w = word;
    word = undefined;
    if (pendingRedirect !== undefined) {
      const kind = pendingRedirect;
      pendingRedirect = undefined;
      if (kind === 'heredoc' || kind === 'heredoc-strip') {
        heredocs.push({ cmd, delim: w, strip: kind === 'heredoc-strip' });
      } else if (kind === 'herestring') {
        cmd.stdin = w;
      } else if (!w.startsWith('&')) {
        cmd.redirects.push({ op: kind, target: w });
      }
      return;
    }
    cmd.words.push(w);
  };
  const endCommand = (op: string | undefined) => {
    endWord();
    if (cmd.words.length > 0 || cmd.redirects.length > 0 || cmd.stdin !== undefined) {
      cmd.next = op;
      out.push(cmd);
    } else if (op !== undefined && out.length > 0 && out[out.length - 1]!.next === undefined) {
      out[out.length - 1]!.next = op;
    }
    cmd = fresh(depth);
  };
  const readHeredocBodies = () => {
    // Called just after a newline: the bodies of the heredocs opened on that line follow.
    while (heredocs.length > 0) {
      const h = heredocs.shift()!;
      const lines: string[] = [];
      while (i < n) {
        let end = text.indexOf('\n', i);
        if (end === -1) end = n;
        const line = text.slice(i, end);
        i = end + 1;
        const check = h.strip ? line.replace(/^\t+/, '') : line;
        if (check.trim() === h.delim) break;
        lines.push(check);
      }
      h.cmd.stdin = lines.join('\n');
    }
  };

  while (i < n) {
    const c = text[i]!;
    if (c === '\\' && text[i + 1] === '\n') {
      i += 2;
      continue;
    }
    if (c === '\\') {
      word = (word ?? '') + (text[i + 1] ?? '');
      i += 2;
      continue;
    }
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      const stop = end === -1 ? n : end;
      word = (word ?? '') + text.slice(i + 1, stop);
      i = stop + 1;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let buf = '';
      while (j < n && text[j] !== '"') {
        if (text[j] === '\\' && j + 1 < n && '"\\$`\n'.includes(text[j + 1]!)) {
          if (text[j + 1] !== '\n') buf += text[j + 1];
          j += 2;
        } else if (text[j] === '$' && text[j + 1] === '(') {
          const end = matchParen(text, j + 1);
          buf += text.slice(j, end + 1);
          j = end + 1;
        } else {
          buf += text[j];
          j++;
        }
      }
      word = (word ?? '') + buf;
      i = j + 1;
      continue;
    }
    if (c === '$' && text[i + 1] === '(') {
      const end = matchParen(text, i + 1);
      word = (word ?? '') + text.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    if (c === '`') {
      const end = text.indexOf('`', i + 1);
      const stop = end === -1 ? n : end;
      word = (word ?? '') + text.slice(i, stop + 1);
      i = stop + 1;
      continue;
    }
    if (c === '#' && word === undefined) {
      while (i < n && text[i] !== '\n') i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      endWord();
      i++;
      continue;
    }
    if (c === '\n') {
      endCommand('\n');
      i++;
      readHeredocBodies();
      continue;
    }
    if (c === '(' || c === ')') {
      if (c === '(' && word !== undefined && /^[\w$]*=$/.test(word)) {
        // `arr=( … )`: an array assignment, kept as one word.
        const end = matchParen(text, i);
        word += text.slice(i, end + 1);
        i = end + 1;
        continue;
      }
      endCommand(c === ')' ? undefined : ';');
      depth = Math.max(0, depth + (c === '(' ? 1 : -1));
      cmd.depth = depth;
      i++;
      continue;
    }
    // Redirections: an optional fd (digits already in `word`), then the operator.
    if (c === '>' || c === '<' || (c === '&' && text[i + 1] === '>')) {
      if (word !== undefined && /^\d+$/.test(word)) word = undefined;
      else endWord();
      if (text.startsWith('<<<', i)) {
        pendingRedirect = 'herestring';
        i += 3;
      } else if (text.startsWith('<<-', i)) {
        pendingRedirect = 'heredoc-strip';
        i += 3;
      } else if (text.startsWith('<<', i)) {
        pendingRedirect = 'heredoc';
        i += 2;
      } else if (text.startsWith('&>>', i)) {
        pendingRedirect = '>>';
        i += 3;
      } else if (text.startsWith('&>', i) || text.startsWith('>|', i)) {
        pendingRedirect = '>';
        i += 2;
      } else if (text.startsWith('>>', i)) {
        pendingRedirect = '>>';
        i += 2;
      } else if (text.startsWith('>&', i) || text.startsWith('<&', i)) {
        // fd duplication (`2>&1`): its target is a descriptor, not a file (dropped in endWord).
        pendingRedirect = '>';
        word = '&';
        i += 2;
      } else {
        pendingRedirect = c === '<' ? '<' : '>';
        i += 1;
      }
      continue;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (op !== undefined) {
      endCommand(op);
      i += op.length;
      continue;
    }
    word = (word ?? '') + c;
    i++;
  }
  endCommand(undefined);
  return out;
}

function fresh(depth: number): SimpleCommand {
  return { words: [], redirects: [], depth };
}

/** Index of the `)` that closes the `(` at `open`, skipping quotes and nested parens. */
function matchParen(text: string, open: number): number {
  let level = 0;
  for (let j = open; j < text.length; j++) {
    const ch = text[j];
    if (ch === "'" || ch === '"') {
      const end = text.indexOf(ch, j + 1);
      if (end === -1) return text.length - 1;
      j = end;
    } else if (ch === '(') level++;
    else if (ch === ')') {
      level--;
      if (level === 0) return j;
    }
  }
  return text.length - 1;
}
