/**
 * Bounds on what a person's decision records as text: who decided (`by`) and why (a note, a
 * rejection's feedback, a tool call's reason). They are stored in the signed ledger, shown by
 * the studio and `agate show`, and read by the model, and they come from outside (a web page,
 * a command line, a chat request), so each is checked before anything is decided.
 */

/** The most characters a decider's name (`by`) or a decision's reason may have. */
export const MAX_DECISION_TEXT_CHARS = 200;

/**
 * Control characters (C0 — line breaks and tabs included —, DEL, C1) and the bidirectional
 * embeddings, overrides and isolates, which would let a name or a reason rewrite the line it
 * is shown on (a fake "approved by" in a terminal, text shown in reverse).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

/**
 * Why `text` (already trimmed) cannot be recorded as a decision's `what`, or undefined when it
 * can. `what` names the field in the message (`\`by\``, `\`reason\``, …).
 */
export function decisionTextProblem(what: string, text: string): string | undefined {
  const length = [...text].length;
  if (length > MAX_DECISION_TEXT_CHARS) {
    return `${what} has ${length} characters; at most ${MAX_DECISION_TEXT_CHARS} are recorded.`;
  }
  const control = CONTROL.exec(text);
  if (control !== null) {
    const code = control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return `${what} holds the control character U+${code} at position ${control.index}: a name or a reason is one line of plain text.`;
  }
  return undefined;
}

/** The run's reason when it ends `awaiting-approval`: which checkpoint, why, and how to decide. */
export function awaitingReason(sessionId: string, id: string, why: string | undefined): string {
  return (
    `Checkpoint "${id}" is awaiting supervisor approval${why === undefined ? '' : ` (${why})`}. ` +
    `Approve it with session.approve("${id}", { by }), approveCheckpoint(store, "${sessionId}", "${id}", { by }) ` +
    `or \`agate approve ${sessionId} ${id} --by NAME\`; reject it with session.reject("${id}", { by, feedback }), ` +
    `rejectCheckpoint(...) or \`agate reject ${sessionId} ${id} --by NAME --feedback TEXT\`. Then call run() again.`
  );
}
