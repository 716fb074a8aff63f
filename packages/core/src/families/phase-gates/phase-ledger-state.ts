import { posix } from 'node:path';
import type { CheckOutcome } from '../../checks/outcome/check-outcome.js';

/**
 * Whose check a verification is. `'project-tests'`: the repository's test runner over tests
 * that existed before the run (or a declared test command, or a tool declared
 * `category="verify"`). `'agent-script'`: a file the agent created in this run (a reproduction
 * script, or a test file it wrote, run through the runner too), or code given inline
 * (`python -c`). `'other'`: linters, type checkers, builds, the repository's own scripts.
 */
export type CheckKind = 'project-tests' | 'agent-script' | 'other';

/** One file the run touched, as the calls tell it. */
export interface FileRecord {
  /** First seen being written whole: the run created it (so far as the calls tell). */
  created: boolean;
  exists: boolean;
  /** Changed by the run at some point. */
  changed: boolean;
  /** Changed since the last verification that ran. */
  dirty: boolean;
  /**
   * Changed since the project's own tests last ran. Absent in snapshots taken before it
   * existed: then every changed file counts as untested.
   */
  untested?: boolean;
  /** Only read (never changed) before it was deleted. */
  readOnlyBefore?: boolean;
}

/** The last verification attempt, for messages. */
export interface VerifyAttempt {
  step: number;
  ran: boolean;
  /** It ran and did not fail. */
  passed: boolean;
  why?: string;
  program?: string;
}

/**
 * A check: what it was, whose it was, and what it said (`'error'`: it could not run, `why`
 * says why). Plain JSON, in the state.
 */
export interface CheckRecord {
  step: number;
  /** Its call's index within the step. */
  call: number;
  /** The command or call (cut to 120 characters). */
  label: string;
  program?: string;
  kind: CheckKind;
  outcome: CheckOutcome;
  /** Why it could not run (`outcome: 'error'`). */
  why?: string;
  /** The test runner's summary line, when it printed one (cut to 200 characters). */
  summary?: string;
  exitCode?: number;
}

/**
 * What the phase gates remember of a run: plain JSON, so it lives in `session.state` and
 * survives a snapshot. Built by `recordStep`; read by `phaseStatus`.
 */
export interface PhaseLedger {
  /** The repository root, when known: absolute paths under it are kept relative to it. */
  root?: string;
  stepsTaken: number;
  calls: number;
  progress: boolean;
  filesRead: string[];
  readsWithoutPath: number;
  searchUsed: boolean;
  patchesProposed: number;
  /** A verification ran (and did not fail, at the 'passed' level and above), anywhere in the run. */
  verifyUsed: boolean;
  files: Record<string, FileRecord>;
  /** Changes with unknown targets since the last verification that ran (their commands). */
  unknownDirty: string[];
  unknownEver: boolean;
  firstChangeStep: number | null;
  /** Steps in a row with neither a change nor a verification, since the first change. */
  stall: number;
  lastVerify: VerifyAttempt | null;
  /** The last check attempted, one that could not run (`'error'`) included. */
  lastAttempt?: CheckRecord;
  /** The last check that ran (absent before one did, and in older snapshots). */
  lastCheck?: CheckRecord;
  /** The last run of the project's own tests. */
  lastProjectTests?: CheckRecord;
  /** Changes with unknown targets since the project's own tests last ran (their commands). */
  unknownUntested?: string[];
  /** Script sources written by the run (path → text), to judge `python script.py` later. */
  scripts: Record<string, string>;
  /** What each `git stash` put away (dirty paths, unknown changes), newest last. */
  stash: Array<{ dirty: string[]; unknown: string[]; untested?: string[] }>;
  /** The file an editor-style agent has open (SWE-agent's `open`), for its `edit` commands. */
  openFile: string | null;
  /**
   * Shell tools whose calls were text-editor inputs (`{ command: 'str_replace', path }`): they
   * read and change files but run nothing, so messages do not offer them for tests or searches.
   * Optional: absent in snapshots taken before it existed.
   */
  editorTools?: string[];
  warned: string[];
  warningSteps: number[];
  lastMissingStep: number | null;
  blocks: number;
}

/**
 * One spelling per file: `./a.py`, `a//b/../a.py` and `a.py` are one path, and with `root` (the
 * repository root) the absolute `<root>/a.py` is `a.py` too.
 */
export function normalizeFilePath(path: string, root?: string): string {
  if (path === '') return path;
  let normal = posix.normalize(path);
  if (root !== undefined && root !== '') {
    const base = posix.normalize(root).replace(/\/+$/, '');
    if (normal === base) return '.';
    if (normal.startsWith(`${base}/`)) normal = normal.slice(base.length + 1);
  }
  if (normal.startsWith('./')) normal = normal.slice(2);
  return normal.length > 1 ? normal.replace(/\/+$/, '') : normal;
}

/**
 * The key a path is recorded under: an absolute path and a relative one name the same file when
 * the absolute one ends with the relative one (`/testbed/a/b.py` and `a/b.py`), so the first
 * spelling seen is kept.
 */
export function keyOf(ledger: PhaseLedger, raw: string): string {
  const path = normalizeFilePath(raw, ledger.root);
  if (path in ledger.files) return path;
  const absolute = path.startsWith('/');
  for (const key of Object.keys(ledger.files)) {
    if (
      absolute !== key.startsWith('/') &&
      (absolute ? path.endsWith(`/${key}`) : key.endsWith(`/${path}`))
    )
      return key;
  }
  return path;
}

/** The ledger's record of a file, under whichever spelling the run first used for it. */
export function findFile(
  ledger: PhaseLedger,
  raw: string,
): { path: string; record: FileRecord } | undefined {
  const path = keyOf(ledger, raw);
  const record = ledger.files[path];
  return record === undefined ? undefined : { path, record };
}

/** Changed since the project's tests last ran (older snapshots: changed at all). */
export function isUntested(record: FileRecord): boolean {
  return record.untested ?? record.changed;
}

/** Unknown changes since the project's tests last ran (older snapshots: every one). */
export function untestedUnknowns(ledger: PhaseLedger): string[] {
  return ledger.unknownUntested ?? [...ledger.unknownDirty];
}
