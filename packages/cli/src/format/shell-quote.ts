/**
 * A word for a POSIX shell, quoted only when it needs to be. The CLI prints commands to paste
 * (the next step, a resume): a URL's `?` or `&`, a path's space or a name's `$(…)` would
 * otherwise be read by the shell instead of passed on.
 */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
