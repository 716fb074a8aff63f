import { AgateError, nameErrorClass } from '../ground/agate-error.js';

/** A snapshot that cannot be written or read: not JSON-serializable, corrupt, or from another version. */
export class SnapshotError extends AgateError {
  static {
    nameErrorClass(SnapshotError, 'SnapshotError');
  }
  /** The class's name as a literal, so a minified bundle still reports it. */
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
  static {
    nameErrorClass(InvalidSessionIdError, 'InvalidSessionIdError');
  }
  /** The class's name as a literal, so a minified bundle still reports it. */
  override name = 'InvalidSessionIdError';
  /** The id refused. */
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

/**
 * A conditional save (`save(snapshot, { expectedRevision })`) found another revision stored:
 * someone saved the session after it was loaded. Load it again, redo the change on what is
 * stored now, and save again (`updateSession` does exactly that).
 */
export class StaleSessionError extends AgateError {
  static {
    nameErrorClass(StaleSessionError, 'StaleSessionError');
  }
  /** The class's name as a literal, so a minified bundle still reports it. */
  override name = 'StaleSessionError';
  /** The session saved in between. */
  readonly sessionId: string;
  /** The revision the save expected to replace. */
  readonly expectedRevision: number;
  /** The revision stored now (0: the session is not stored at all). */
  readonly actualRevision: number;

  constructor(sessionId: string, expectedRevision: number, actualRevision: number) {
    super(
      `Session "${sessionId}" changed in the store since it was loaded: expected revision ` +
        `${expectedRevision}, found ${actualRevision === 0 ? 'none (it is not stored)' : actualRevision}. ` +
        'Another process saved it (or deleted it) in between; nothing was written. Load it again ' +
        'and redo the change on what is stored now.',
    );
    this.sessionId = sessionId;
    this.expectedRevision = expectedRevision;
    this.actualRevision = actualRevision;
  }
}

/** The file store could not take a session's lock file in time (another process holds it). */
export class SessionLockError extends AgateError {
  static {
    nameErrorClass(SessionLockError, 'SessionLockError');
  }
  /** The class's name as a literal, so a minified bundle still reports it. */
  override name = 'SessionLockError';
  /** The lock file. */
  readonly path: string;
  constructor(message: string, path: string) {
    super(message);
    this.path = path;
  }
}
