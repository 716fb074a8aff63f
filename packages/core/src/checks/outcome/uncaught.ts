/**
 * How a program that died of an uncaught error ends its output: Python's traceback, Node's
 * uncaught exception, Java's `Exception in thread`, javac's errors. Read only at the end of the
 * output: a traceback a program printed and then carried on from is not its death.
 */

// The lines a traceback is made of after its header: frames and their code, `^` markers,
// chained tracebacks, and exception lines (`ValueError: …`, a qualified name).
const PY_INDENTED = /^(?:\s+\S|\s*$)/;
const PY_CHAIN =
  /^(?:During handling of the above exception|The above exception was the direct cause|Traceback \(most recent call last\):)/;
const PY_EXCEPTION = /^[A-Za-z_][\w.]*(?::\s.*|:)?$/;
const PY_HEADER = 'Traceback (most recent call last):';

const JAVA_HEADER = /^Exception in thread "[^"]*" [\w.$]+/;
const JAVA_FRAME = /^(?:\tat |\s+at |Caused by: |\t\.\.\. \d+ more|\s*\.\.\. \d+ more|\s*$)/;

const NODE_STACK = /^\s+at (?:.+ \(.+:\d+:\d+\)|.+:\d+:\d+|.+ \(node:.+\)|node:.+)$/;
const NODE_ERROR = /^(?:Uncaught )?(?:[A-Z]\w*)?(?:Error|Exception)(?: \[[A-Z_]+\])?(?::.*)?$/;
const NODE_TAIL = /^Node\.js v\d+/;

const JAVAC_ERROR = /^\S+\.java:\d+: error: /m;
const JAVAC_COUNT = /^\d+ errors?$/;

/** The uncaught error the output ends with, as one line for messages; undefined: none. */
export function uncaughtAtEnd(text: string): string | undefined {
  const lines = text.replace(/\s+$/, '').split('\n');
  return python(text, lines) ?? java(lines) ?? node(lines) ?? javac(text, lines);
}

function python(text: string, lines: readonly string[]): string | undefined {
  const at = text.lastIndexOf(PY_HEADER);
  if (at === -1) return undefined;
  const start = text.slice(0, at).split('\n').length;
  const rest = lines.slice(start);
  if (rest.length === 0) return PY_HEADER;
  for (const [i, line] of rest.entries()) {
    if (PY_INDENTED.test(line) || PY_CHAIN.test(line)) continue;
    // An exception line ends the traceback, or a chained one that a blank line follows.
    const last = i === rest.length - 1;
    if (!PY_EXCEPTION.test(line) || (!last && rest[i + 1]?.trim() !== '')) return undefined;
  }
  const last = rest.at(-1)!;
  // Cut inside the traceback (a stored output's first characters): the header says enough.
  if (PY_INDENTED.test(last)) return PY_HEADER;
  const before = rest.at(-2);
  return before === undefined || PY_INDENTED.test(before) ? last.trim() : undefined;
}

function java(lines: readonly string[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (JAVA_HEADER.test(line)) return line.trim();
    if (!JAVA_FRAME.test(line)) return undefined;
  }
  return undefined;
}

function node(lines: readonly string[]): string | undefined {
  let end = lines.length - 1;
  if (end >= 0 && NODE_TAIL.test(lines[end]!)) end--;
  while (end >= 0 && lines[end]!.trim() === '') end--;
  let i = end;
  while (i >= 0 && NODE_STACK.test(lines[i]!)) i--;
  // Error properties Node prints after the message (`{ code: 'ERR_…' }`) are not read.
  if (i === end || i < 0) return undefined;
  const line = lines[i]!.trim();
  return NODE_ERROR.test(line) ? line : undefined;
}

function javac(text: string, lines: readonly string[]): string | undefined {
  const last = lines.at(-1)?.trim() ?? '';
  return JAVAC_COUNT.test(last) && JAVAC_ERROR.test(text) ? last : undefined;
}
