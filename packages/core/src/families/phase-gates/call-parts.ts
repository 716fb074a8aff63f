import {
  type ClassifyOptions,
  classifyShellCommand,
  resolve,
  type ShellOp,
  type ShellPart,
  scriptsWritten,
} from '../../checks/shell-classifier/classify-shell-command.js';
import type { ToolCategory } from '../../checks/tool-category.js';

const DEFAULT_OP: Record<ToolCategory, ShellOp> = {
  discovery: 'list',
  search: 'search',
  read: 'read',
  patch: 'edit',
  verify: 'test',
  other: 'other',
};

// Text-editor tools (`str_replace_editor`, `edit_file`) put a subcommand in `command` and the file in `path`.
const EDITOR_OPS: Record<string, { category: ToolCategory; op: ShellOp }> = {
  view: { category: 'read', op: 'read' },
  create: { category: 'patch', op: 'write' },
  write: { category: 'patch', op: 'write' },
  str_replace: { category: 'patch', op: 'edit' },
  insert: { category: 'patch', op: 'edit' },
  undo_edit: { category: 'patch', op: 'edit' },
  delete: { category: 'patch', op: 'delete' },
};

/** The command a shell tool's call runs: `input.command` (or `cmd`, `script`, an argv array). */
export function commandOf(input: unknown): string | undefined {
  if (typeof input === 'string') return input;
  if (typeof input !== 'object' || input === null) return undefined;
  const record = input as Record<string, unknown>;
  const value = record.command ?? record.cmd ?? record.script;
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
    const argv = value as string[];
    // `["bash", "-lc", "…"]`: the script is the last word.
    if (argv.length >= 3 && /(?:^|\/)(?:ba|z)?sh$/.test(argv[0]!) && /^-\w*c$/.test(argv[1]!))
      return argv[2];
    return argv.map((a) => (/[\s'"]/.test(a) ? `'${a.replace(/'/g, `'\\''`)}'` : a)).join(' ');
  }
  return undefined;
}

/** File paths a per-tool call names (`path`, `file_path`, `filename`, `paths`). */
export function pathsOf(input: unknown): string[] {
  if (typeof input !== 'object' || input === null) return [];
  const r = input as Record<string, unknown>;
  const one = r.path ?? r.file_path ?? r.filePath ?? r.filename ?? r.file;
  if (typeof one === 'string') return [resolve('', one)];
  const many = r.paths ?? r.files;
  if (Array.isArray(many))
    return many.filter((p): p is string => typeof p === 'string').map((p) => resolve('', p));
  return [];
}

const CREATES = /^(?:create|new)(?:_?file)?$|^(?:create|new|write)_file$/i;

/** Parts of a call to a tool with fixed categories: one part per category, the input's paths on each. */
export function partsForCategories(
  categories: readonly ToolCategory[],
  input: unknown,
  toolName: string,
): ShellPart[] {
  const paths = pathsOf(input);
  // A write with the whole text (`{ path, content }`) makes the file, as an editor's `create` does.
  const whole =
    typeof input === 'object' &&
    input !== null &&
    ['content', 'file_text', 'contents'].some(
      (k) => typeof (input as Record<string, unknown>)[k] === 'string',
    );
  // A tool that makes files (SWE-agent's `create`, `create_file`) makes them even when empty.
  const makes = whole || CREATES.test(toolName);
  return categories.map((category) => ({
    category,
    op: category === 'patch' && makes && paths.length > 0 ? 'write' : DEFAULT_OP[category],
    paths,
    ...(category === 'patch' && paths.length === 0 ? { unknownTargets: true as const } : {}),
    program: toolName,
    // A tool declared `category="verify"` runs the checks its author set up: the project's
    // tests, unless it names a file the run created.
    ...(category === 'verify' ? { suite: paths } : {}),
  }));
}

/**
 * Parts of one call to a shell tool. Text-editor shaped inputs (`{ command: 'str_replace', path }`)
 * are read as the editor operation they are; anything else is classified as a command line.
 * `scripts` (sources the run wrote) lets `python fix.py` be judged by what `fix.py` does.
 */
export function partsForShell(
  input: unknown,
  command: string | undefined,
  scripts: ReadonlyMap<string, string>,
  toolName: string,
  context: Pick<ClassifyOptions, 'openFile' | 'testCommands'> = {},
): ShellPart[] {
  if (typeof input === 'object' && input !== null) {
    const r = input as Record<string, unknown>;
    const editor = typeof r.command === 'string' ? EDITOR_OPS[r.command] : undefined;
    const paths = pathsOf(input);
    if (editor !== undefined && paths.length > 0) return [{ ...editor, paths, program: toolName }];
    // An edit or write tool with no command at all (`{ file_path, old_string, new_string }`).
    if (command === undefined && paths.length > 0) {
      const whole = 'content' in r || 'file_text' in r || 'contents' in r;
      const makes = whole || CREATES.test(toolName);
      const edits =
        makes ||
        'old_string' in r ||
        'new_string' in r ||
        'old_str' in r ||
        'edits' in r ||
        'diff' in r ||
        'patch' in r;
      return [
        edits
          ? { category: 'patch', op: makes ? 'write' : 'edit', paths, program: toolName }
          : { category: 'read', op: 'read', paths, program: toolName },
      ];
    }
  }
  if (command === undefined || command.trim() === '') return [];
  return classifyShellCommand(command, { scripts, ...context });
}

/** Scripts a shell call (or an editor `create`) writes whole, with their text. */
export function scriptsOf(input: unknown, command: string | undefined): Map<string, string> {
  if (typeof input === 'object' && input !== null) {
    const r = input as Record<string, unknown>;
    const text = r.file_text ?? r.content ?? r.contents;
    const paths = pathsOf(input);
    if (
      typeof text === 'string' &&
      paths.length === 1 &&
      (r.command === 'create' || r.command === undefined || r.command === 'write')
    ) {
      return new Map([[paths[0]!, text]]);
    }
  }
  return command === undefined ? new Map() : scriptsWritten(command);
}
