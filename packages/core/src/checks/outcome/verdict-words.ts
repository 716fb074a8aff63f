import { uncaughtAtEnd } from './uncaught.js';

/**
 * A script's own verdict on what it checks, as it prints it: `FAIL: …`, `FAILURE: …`,
 * `Bug reproduced`, `Issue still present`, `… (unexpectedly)`, `Import failed: <reason>`,
 * `Mismatch! …`, `Expected 3, got 4`, `… (Unexpected - <why>)`. Read
 * only from output no test runner printed a summary in (a runner's own lines decide there), and
 * only line by line, anchored to the start of a line or to a separator, so a word inside a value
 * or a message does not count. A line that says it is not reproduced, or fails as expected,
 * says the opposite.
 */
// Upper case only: `FAIL: …`, `FAILED`, `FAILURE: …`, `[FAIL] …`, `Test FAILED` (a `Failed to …`
// in a message is not a verdict).
const FAIL_WORD =
  /^[\s\-*#>[✗✘❌]*(?:(?:Tests?|TESTS?|Check|Result|Status|Verification)\s*:?\s*)?(?:FAIL|FAILED|FAILURE)\b/;
// The same word as a label's value: `Case 2: FAIL`, `empty input -> FAILED`, `x ... FAIL`.
const FAIL_VALUE = /(?::|->|=>|\.\.\.|\s-)\s*(?:FAIL|FAILED|FAILURE)\b/;
// `Bug reproduced`, `ISSUE REPRODUCED: …`, `Issue still present`, `Reproduced: …`,
// `Validation passed (unexpectedly)`.
const FAILED_SENTENCE =
  /^[\s\-*#>[]*(?:the )?(?:bug|issue|problem)\s+(?:is\s+)?(?:reproduced|confirmed|still\s+(?:present|exists|occurs|reproduced)|present|exists)\b|^[\s\-*#>[]*(?:reproduced|still broken|not fixed)\b/i;
// A result the script tags, at the end of its line, as not what it should be: `… (unexpectedly)`,
// `Table exists on other (Unexpected - Router should have prevented this)`, `(WRONG: should be
// 2)`. The tag's word stands alone or before a separator and its reason (`(unexpected keyword
// argument)` is a message, `(Expected)` the opposite).
const UNEXPECTED_TAG =
  /\((?:unexpected(?:ly)?|not expected|wrong|incorrect|bug|broken)\s*(?:[-–—:,!;]\s*([^()]*))?\)\s*[.!]?$/i;
// The same sentence inside a line: `Test 2: the bug is still present`, `Sympify issue reproduced`.
const FAILED_CLAUSE =
  /\b(?:bug|issue|problem)\b[^.:]{0,40}?\b(?:still\s+(?:present|exists|occurs|there|happens|reproduc\w*)|(?:is\s+|was\s+)?reproduced)\b/i;
// A comparison the script reports as failed: `Mismatch! Expected: …`, `MISMATCH: …`, `Subwidget 0
// id_for_label mismatch. Expected …` — the word as the line's verdict (a few words may name what
// was compared), not `No mismatch`, `Mismatch: 0` or `Checking for mismatches...`.
const MISMATCH =
  /^[\s\-*#>[✗✘❌]*((?:[\w.'"()[\]-]+\s+){0,4}?)(?:mismatch(?:es|ed)?|MISMATCH(?:ES|ED)?|Mismatch(?:es|ed)?)\b\s*([!:.]|$)\s*(.*)$/;
// What a comparison found: `Expected 3, got 4`, `expected: [1, 2] but got: [2, 1]`, opening the
// line or after a label (`Test 2: expected …`, `Mismatch! Expected …`).
const EXPECTED_GOT =
  /(?:^|[:!]\s|\s-\s)\s*expected\s*:?\s+(.{1,160}?)[,;]?\s+(?:but\s+)?(?:got|received|actual|found)\s*:?\s+(.{1,160}?)\s*[.!]?$/i;
// An exception's or a warning's own message (`TypeError: expected str, got int`, numpy's
// `RuntimeWarning: … Expected 80 from C header, got 96`) is not the script's comparison.
const EXCEPTION_NAME = /\b[A-Z]\w*(?:Error|Exception|Warning)\b/;
// A line that asks rather than tells: `Checking whether the bug is still present...`.
const ASKS = /\b(?:if|whether)\b|(?:\?|\.\.\.|…)\s*$/i;
// What a script prints when what it tried failed, with the reason after a colon: `Import
// failed: No module named 'x'`, `Query failed with error: …`, `Failed to decode …: Incorrect
// padding`. A few words lead in; the reason is what makes it a report (`Failed to connect,
// retrying` is a log line).
const FAILED_REPORT =
  /^\s*((?:[\w.'"()[\]-]+\s+){0,4}?(?:failed|Failed|FAILED)(?:\s+\w+){0,3})\s*:\s+(\S.*)$|^\s*(Failed to\b[^:]{1,80}):\s+(\S.*)$/;
// The same for an error it caught, read only as the last thing printed (an error printed and
// carried on from is not the result): `Caught exception: TypeError: …`, `An error occurred: …`.
const ERROR_REPORT =
  /^\s*((?:[\w.'"()[\]-]+\s+){0,4}?(?:error|exception)(?:\s+\w+){0,2})\s*:\s+(\S.*)$/i;
// A lead-in that says the failure or error was meant (`Caught expected error: …`, `Correctly
// failed: …`) or names a property of an error rather than one (`Error message: …`).
const MEANT =
  /\b(?:expected|correctly|properly|intentionally|should)\b|\b(?:error|exception)\s+(?:message|msg|text|type|class|count|rate|code|string|name)s?\b/i;
// The runtime's own words for a defect: an error no design raises on purpose, so a script that
// calls it expected (`Caught expected error: list index out of range`) has met the bug, not a
// check that worked.
const DEFECT =
  /\b(?:list|tuple|string|str|array|bytearray|range object) index out of range\b|\bindex -?\d+ is out of bounds\b|'NoneType' object (?:has no attribute|is not (?:subscriptable|iterable|callable))|\bdivision (?:or modulo )?by zero\b|\bmaximum recursion depth exceeded\b|\breferenced before assignment\b|\bunhashable type\b|\bCannot read propert(?:y|ies) of (?:undefined|null)\b|\bundefined is not a function\b/;
// A reason that says there was none (`failed: 0`, `Error: None`).
const NO_REASON = /^(?:0|none|no|false|nothing|n\/a|\[\]|\{\}|\(\))[.!]?$/i;
// An error metric, not an error (`Max abs error: 1.2e-16`).
const NUMBER = /^[-+]?\d/;
// `Error: …`, `ERROR: …`, or an exception's name and its message (`TypeError: …`,
// `django.core.exceptions.FieldError: …`) at the start of a line.
const ERROR_LINE = /^(?:[A-Za-z_][\w.]*)?(?:Error|Exception|ERROR):\s/;
// A scaffold's closing tag after the output (mini-swe-agent's `</output>`) is not the program's.
const CLOSING_TAG = /\n<\/\w+>\s*$/;
const NEGATED =
  /\bnot\s+(?:reproduced|present|confirmed)|as expected|\(expected\)|\bno longer\b|\bretry|\bno (?:bug|issue|error)/i;

/** The line that says the check failed, by the script's own words; undefined: none does. */
export function failedVerdict(text: string): string | undefined {
  for (const line of text.split('\n')) {
    if (line.length > 400 || NEGATED.test(line)) continue;
    if (
      !FAIL_WORD.test(line) &&
      !FAIL_VALUE.test(line) &&
      !FAILED_SENTENCE.test(line) &&
      !(FAILED_CLAUSE.test(line) && !ASKS.test(line)) &&
      failedReport(line) === undefined &&
      !mismatchReported(line) &&
      !unexpectedTag(line) &&
      !differsFromExpected(line)
    )
      continue;
    return line.trim();
  }
  return undefined;
}

/** Whether `line` ends on a tag saying its result is not what it should be, with any reason. */
function unexpectedTag(line: string): boolean {
  const m = UNEXPECTED_TAG.exec(line);
  return m !== null && !NO_REASON.test((m[1] ?? 'x').trim());
}

/** Whether `line` says a comparison failed (`Mismatch! …`), not that there was none. */
function mismatchReported(line: string): boolean {
  const m = MISMATCH.exec(line);
  if (m === null || /\bno\b|\bnot\b|\bwithout\b/i.test(m[1]!) || ASKS.test(line)) return false;
  const rest = m[3]!.trim();
  // `Mismatch: 0`, `Mismatches: none`: a count or a flag, not a finding.
  return !(m[2] === ':' && (NO_REASON.test(rest) || rest === ''));
}

/** Whether `line` reports an expected value and a different one got (`Expected 3, got 4`). */
function differsFromExpected(line: string): boolean {
  if (EXCEPTION_NAME.test(line)) return false;
  const m = EXPECTED_GOT.exec(line.trim());
  if (m === null) return false;
  return comparable(m[1]!) !== comparable(m[2]!);
}

// Values as printed, without the quotes and spacing that differ between two prints of one value.
const comparable = (value: string) => value.replace(/^['"`]|['"`]$/g, '').replace(/\s+/g, '');

/** `line` when it reports that something the script tried failed, with the reason. */
function failedReport(line: string): string | undefined {
  const m = FAILED_REPORT.exec(line);
  if (m === null) return undefined;
  const leadIn = m[1] ?? m[3] ?? '';
  const reason = (m[2] ?? m[4] ?? '').trim();
  return (MEANT.test(leadIn) && !DEFECT.test(reason)) || NO_REASON.test(reason)
    ? undefined
    : line.trim();
}

/** `line` when it reports an error the script caught (`Caught exception: …`), not a metric. */
function errorReport(line: string): string | undefined {
  if (NEGATED.test(line)) return undefined;
  const m = ERROR_REPORT.exec(line);
  if (m === null) return undefined;
  const reason = m[2]!.trim();
  return (MEANT.test(m[1]!) && !DEFECT.test(reason)) ||
    NO_REASON.test(reason) ||
    NUMBER.test(reason)
    ? undefined
    : line.trim();
}

// A script's header for the output of a program it ran and shows (`STDOUT output:`, `Subprocess
// stderr:`, `Output:`): the lines after it are that program's — an interactive tool's prompt
// (`Error: an existing conf.py has been found` before it asks again), its log — not the script's
// verdict, which would come after them.
const ECHO_HEADER = /^[ \t]*(?:[\w-]+ ){0,4}(?:stdout|stderr|output)(?: output)?[ \t]*:[ \t]*$/im;

/**
 * What a program that exited 0 printed last, when that is an error: a traceback it caught and
 * printed (`traceback.print_exc()`), an error line (`Error: …`, `TypeError: …`), or a report of
 * an error it caught (`Caught exception: …`), or an error followed only by the list its message
 * announces (a caught `SystemCheckError: …:` printed whole). A script whose last word is an error
 * is reporting one; undefined: its output ends otherwise, or ends in another program's output that
 * the script shows under its own header (`STDOUT output:`).
 */
export function printedErrorAtEnd(text: string): string | undefined {
  const body = text.replace(CLOSING_TAG, '').replace(/\s+$/, '');
  // What follows the script's own header for another program's output is that program's.
  if (ECHO_HEADER.test(body)) return undefined;
  const printed = uncaughtAtEnd(body);
  if (printed !== undefined) return printed;
  const last = body.slice(body.lastIndexOf('\n') + 1).trim();
  if (last.length > 400) return undefined;
  return (ERROR_LINE.test(last) ? last : errorReport(last)) ?? announcedErrorAtEnd(body);
}

// An error whose message announces a list (`SystemCheckError: System check identified some
// issues:`), and the lines such a list is made of: blank or indented lines, a header (`ERRORS:`),
// items (`- …`, `* …`, `app.Model: (models.E015) …`) and a closing count (`System check
// identified 1 issue (0 silenced).`). An error followed by only its list is still the last thing
// printed; any other line after it is the script carrying on.
const ANNOUNCED_ERROR = /^(?:[A-Za-z_][\w.]*)?(?:Error|Exception|ERROR):\s.{0,300}:$/gm;
const LIST_LINE =
  /^(?:\s.*|[A-Z][A-Z ]{1,30}:|[-*•]\s.*|\S+: \(\w+\.[A-Z]\d+\) .*|.*\b\d+ (?:issues?|errors?|problems?)\b.*)?$/;
const LIST_LINES = 20;

/** The error that opens the output's last lines when those lines are the list it announced. */
function announcedErrorAtEnd(body: string): string | undefined {
  let last: RegExpExecArray | undefined;
  for (const m of body.matchAll(ANNOUNCED_ERROR)) last = m;
  if (last === undefined) return undefined;
  const after = body.slice(last.index + last[0].length + 1).split('\n');
  return after.length <= LIST_LINES && after.every((line) => LIST_LINE.test(line))
    ? last[0].trim()
    : undefined;
}
