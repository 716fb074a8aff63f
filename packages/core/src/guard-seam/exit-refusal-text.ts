/**
 * What the model reads as the result of a tool call that asked to finish (`final_answer`) when
 * the exit is not accepted: `Not accepted: <each refusing guard's reason>`. One short text: the
 * reasons come from guards (a defined guard's is the agent author's text, a phase gate's names
 * files the model chose), so each is made one plain line and cut, and the whole is bounded.
 */

/** How many times in a row a guard refuses the exit before the run ends `blocked` (its `maxBlocks`). */
export const DEFAULT_MAX_BLOCKS = 5;

export const NOT_ACCEPTED = 'Not accepted:';

/** Characters kept of one reason; the rest is said as a count. */
export const MAX_REASON_CHARS = 1_000;
/** Characters of the whole text, reasons and ending included. */
export const MAX_NOT_ACCEPTED_CHARS = 4_000;

// C0 and C1 controls (newlines and tabs included: the text is one line), DEL, and the bidi
// overrides and isolates that can make a terminal or the studio show text that is not there.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters removed.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]+/g;

// The same, but newlines and tabs stay: a guard's refusal may be several lines.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters removed.
const UNSAFE_IN_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]+/g;

/** Characters kept of a `defineGuard` refusal (its notice, reasons, events and run reason). */
export const MAX_GUARD_REFUSAL_CHARS = 2_000;

/** `text` as one plain line of at most `max` characters (a cut says how much was left out). */
export function plainLine(text: string, max: number): string {
  return cutTo(text.replace(UNSAFE, ' ').replace(/ {2,}/g, ' ').trim(), max);
}

/**
 * `text` without control characters but its newlines and tabs, at most `max` characters: a
 * refusal an agent's own guard computed (perhaps from a file or a tool's output) before the
 * model, the terminal or the studio read it.
 */
export function plainText(text: string, max: number): string {
  return cutTo(text.replace(UNSAFE_IN_LINES, ' ').trim(), max);
}

function cutTo(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = `… (${text.length - max} more characters)`;
  return `${text.slice(0, Math.max(0, max - cut.length))}${cut}`;
}

/**
 * `Not accepted: <reasons>` (each reason a sentence), then `ending` when there is one (the run
 * ends blocked). Never longer than `MAX_NOT_ACCEPTED_CHARS`.
 */
export function notAcceptedText(reasons: readonly string[], ending?: string): string {
  const parts = reasons
    .map((r) => plainLine(r, MAX_REASON_CHARS))
    .filter((r) => r !== '')
    .map(sentence);
  const end = ending === undefined ? '' : plainLine(ending, MAX_REASON_CHARS);
  if (end !== '') parts.push(sentence(end));
  // The generic phrase only when nothing else says why (not before an ending that does).
  if (parts.length === 0) parts.push('the exit was refused.');
  return plainLine(`${NOT_ACCEPTED} ${parts.join(' ')}`, MAX_NOT_ACCEPTED_CHARS);
}

/** Ends with a full stop unless it ends in punctuation already. */
function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/**
 * A refusal's count as every guard writes it: " (refusal n of max)"; past `max` (the attempt
 * that ends the run) it says so instead of a count that reads as if refusals were left.
 */
export function refusalCount(n: number, max: number): string {
  return n > max
    ? ` (attempt ${n}, past maxBlocks ${max}: the run ends)`
    : ` (refusal ${n} of ${max})`;
}
