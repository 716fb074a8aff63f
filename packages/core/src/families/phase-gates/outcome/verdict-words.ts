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
