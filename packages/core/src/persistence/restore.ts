import { SnapshotError } from './errors.js';
import { parseSnapshot, type SessionSnapshot } from './snapshot.js';

const REQUIRED_STATE_FIELDS = ['id', 'tick', 'timeline', 'knobs', 'gates', 'usage', 'progress'];

/**
 * The state inside a snapshot handed to `createSession`, checked the same way a stored file
 * is (format, version, shape), so an object built by hand or by an older version is refused
 * with a clear message instead of misread.
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
  const parsed = parseSnapshot(text, 'passed to createSession');
  const state = parsed.state as Record<string, unknown> | null;
  const missing = REQUIRED_STATE_FIELDS.filter(
    (field) => typeof state !== 'object' || state === null || !(field in state),
  );
  if (missing.length > 0) {
    throw new SnapshotError(
      `The snapshot passed to createSession does not hold an Agate session state (missing ${missing.join(', ')}).`,
    );
  }
  return parsed.state as S;
}
