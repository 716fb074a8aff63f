import { AgateError } from '../runtime/errors.js';

/** A snapshot that cannot be written or read: not JSON-serializable, corrupt, or from another version. */
export class SnapshotError extends AgateError {
  override name = 'SnapshotError';
  /** The file (or other source) the snapshot came from, when there is one. */
  readonly path?: string;

  constructor(message: string, options?: { path?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    if (options?.path !== undefined) this.path = options.path;
  }
}

/** A session id that cannot safely name a file. */
export class InvalidSessionIdError extends AgateError {
  override name = 'InvalidSessionIdError';
  readonly id: unknown;

  constructor(id: unknown, maxLength = 128) {
    super(
      `Invalid session id ${typeof id === 'string' ? JSON.stringify(id) : String(id)}: ids must be 1-${maxLength} ` +
        'characters of letters, digits, "_", "." or "-", and must not start with "." ' +
        '(they name files, so "/" and ".." are never allowed).',
    );
    this.id = id;
  }
}
