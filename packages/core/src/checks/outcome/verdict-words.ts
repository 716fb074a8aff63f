import { uncaughtAtEnd } from './uncaught.js';

/**
 * A script's own verdict on what it checks, as it prints it: `FAIL: …`, `FAILURE: …`,
 * `Bug reproduced`, `Issue still present`, `… (unexpectedly)`. Read only from output no test
 * runner printed a summary in (a runner's own lines decide there), and only line by line at
 * the start of a line, so a word inside a value or a message does not count. A line that
 * says it is not reproduced, or fails as expected, says the opposite.
 */
// Upper case only: `FAIL: …`, `FAILED`, `FAILURE: …`, `[FAIL] …`, `Test FAILED` (a `Failed to …`
// in a message is not a verdict).
const FAIL_WORD =
  /^[\s\-*#>[✗✘❌]*(?:(?:Tests?|TESTS?|Check|Result|Status|Verification)\s*:?\s*)?(?:FAIL|FAILED|FAILURE)\b/;
// `Bug reproduced`, `ISSUE REPRODUCED: …`, `Issue still present`, `Reproduced: …`,
// `Validation passed (unexpectedly)`.
const FAILED_SENTENCE =
  /^[\s\-*#>[]*(?:the )?(?:bug|issue|problem)\s+(?:is\s+)?(?:reproduced|confirmed|still\s+(?:present|exists|occurs|reproduced)|present|exists)\b|^[\s\-*#>[]*(?:reproduced|still broken|not fixed)\b|\((?:unexpected(?:ly)?|not expected|wrong|incorrect)\)\s*$/i;
// `Error: …`, `ERROR: …`, or an exception's name and its message (`TypeError: …`,
// `django.core.exceptions.FieldError: …`) at the start of a line.
const ERROR_LINE = /^(?:[A-Za-z_][\w.]*)?(?:Error|Exception|ERROR):\s/;
// A scaffold's closing tag after the output (mini-swe-agent's `</output>`) is not the program's.
const CLOSING_TAG = /\n<\/\w+>\s*$/;
const NEGATED = /\bnot\s+(?:reproduced|present|confirmed)|as expected|\bno (?:bug|issue|error)/i;

/** The line that says the check failed, by the script's own words; undefined: none does. */
export function failedVerdict(text: string): string | undefined {
  for (const line of text.split('\n')) {
    if (line.length > 400 || NEGATED.test(line)) continue;
    if (!FAIL_WORD.test(line) && !FAILED_SENTENCE.test(line)) continue;
    return line.trim();
  }
  return undefined;
}

/**
 * What a program that exited 0 printed last, when that is an error: a traceback it caught and
 * printed (`traceback.print_exc()`), or an error line (`Error: …`, `TypeError: …`). A script
 * whose last word is an error is reporting one; undefined: its output ends otherwise.
 */
export function printedErrorAtEnd(text: string): string | undefined {
  const body = text.replace(CLOSING_TAG, '').replace(/\s+$/, '');
  const printed = uncaughtAtEnd(body);
  if (printed !== undefined) return printed;
  const last = body.slice(body.lastIndexOf('\n') + 1).trim();
  return last.length <= 400 && ERROR_LINE.test(last) ? last : undefined;
}
