import { isObjectRecord } from '../ground/json.js';
import { SnapshotError } from './persistence-errors.js';
import { isValidSessionId, parseSnapshot, type SessionSnapshot } from './snapshot.js';
import { guardSliceProblems, stateSchemaProblems } from './validate-state.js';

type Check = (value: unknown) => boolean;

const isCount: Check = (v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isNumber: Check = (v) => typeof v === 'number' && Number.isFinite(v);
const isString: Check = (v) => typeof v === 'string';
const isArray: Check = (v) => Array.isArray(v);

/** The shape of a session state (layout version 3); each entry says what the field must be. */
const STATE_FIELDS: Array<[string, Check, string]> = [
  ['id', isValidSessionId, 'a valid session id'],
  ['tick', isCount, 'a whole number >= 0'],
  ['timeline', isArray, 'an array of messages'],
  ['usage', isObjectRecord, 'an object'],
  ['toolCalls', isCount, 'a whole number >= 0'],
  ['notices', isArray, 'an array'],
  ['text', isString, 'a string'],
  ['status', isString, 'a string'],
  ['guards', isObjectRecord, 'an object'],
];
const USAGE_FIELDS = ['inputTokens', 'outputTokens', 'totalTokens'];
/**
 * The state inside a snapshot handed to `createSession`, checked the same way a stored file
 * is (format, version), and then for the shape of a session state, so an object built by hand,
 * edited, or written by another version is refused with a message naming the field instead of
 * being misread (a missing counter would silently turn budgets into NaN).
 */
export function restoreSnapshotState<S>(snapshot: SessionSnapshot): S {
  let text: string;
  try {
    text = JSON.stringify(snapshot);
  } catch (error) {
    throw new SnapshotError('The snapshot passed to createSession is not JSON-serializable.', {
      cause: error,
    });
  }
  if (text === undefined) {
    throw new SnapshotError(
      `The snapshot passed to createSession is ${String(snapshot)}, not a session snapshot.`,
    );
  }
  const parsed = parseSnapshot(text, 'passed to createSession');
  const problems = stateProblems(parsed.state);
  const guards = isObjectRecord(parsed.state) ? parsed.state.guards : undefined;
  // The families' slices beside the shape: a missing counter says as much as a missing field.
  if (isObjectRecord(guards)) problems.push(...guardSliceProblems(guards));
  // The shape first (missing fields say more than their sub-issues); then every bad value, by path.
  if (problems.length === 0) problems.push(...stateSchemaProblems(parsed.state));
  if (problems.length > 0) {
    throw new SnapshotError(
      `The snapshot passed to createSession ("${parsed.id}") does not hold a valid Agate session ` +
        `state: ${problems.join('; ')}.`,
    );
  }
  return parsed.state as S;
}

function stateProblems(state: unknown): string[] {
  if (!isObjectRecord(state)) return ['state is not an object'];
  const problems = checkFields(state, STATE_FIELDS, 'state');
  const { usage } = state;
  if (isObjectRecord(usage)) {
    for (const field of USAGE_FIELDS) {
      if (!isNumber(usage[field])) problems.push(`state.usage.${field} must be a number`);
    }
  }
  return problems;
}

function checkFields(
  record: Record<string, unknown>,
  fields: Array<[string, Check, string]>,
  path: string,
): string[] {
  const problems: string[] = [];
  for (const [field, check, expected] of fields) {
    if (!(field in record)) problems.push(`${path}.${field} is missing`);
    else if (!check(record[field])) problems.push(`${path}.${field} must be ${expected}`);
  }
  return problems;
}
