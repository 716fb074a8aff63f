import { posix } from 'node:path';

/** Commands compare after collapsing whitespace: `npm  test` and `npm test\n` are one command. */
export function normalizeCommand(command: string): string {
  return command.trim().replace(/\s+/g, ' ');
}

/**
 * Paths compare as normalized relative paths: `./a/b`, `a//b`, `a/./b` and `a\b` are all
 * `a/b`; `a/x/../b` is `a/b`; a trailing slash is dropped. Absolute paths stay absolute.
 */
export function normalizePath(path: string): string {
  const normalized = posix.normalize(path.trim().replace(/\\/g, '/'));
  if (normalized === '/' || normalized === '.') return normalized;
  return normalized.replace(/^\.\//, '').replace(/\/+$/, '');
}

/** Item texts (content, activeForm, a step name) compare trimmed, whitespace collapsed, case-folded. */
export function textKey(text: string): string {
  return text.trim().replace(/\s+/g, ' ').toLowerCase();
}
