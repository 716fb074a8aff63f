import { posix } from 'node:path';
import { verificationPassed } from './outcome/check-outcome.js';
import type { ShellPart } from './shell/classify.js';
import { type CallResult, verificationRan, whyNotRun } from './shell/ran.js';
import type { PhaseCall, PhaseGateOptions } from './types.js';

/** One file the run touched, as the calls tell it. */
export interface FileRecord {
  /** First seen being written whole: the run created it (so far as the calls tell). */
  created: boolean;
  exists: boolean;
  /** Changed by the run at some point. */
  changed: boolean;
  /** Changed since the last verification that ran. */
  dirty: boolean;
  /** Only read (never changed) before it was deleted. */
  readOnlyBefore?: boolean;
}

/** The last verification attempt, for messages. */
export interface VerifyAttempt {
  step: number;
  ran: boolean;
  passed: boolean;
  why?: string;
  program?: string;
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
  /** A verification ran (passed, with requirePassing), anywhere in the run. */
  verifyUsed: boolean;
  files: Record<string, FileRecord>;
  /** Changes with unknown targets since the last verification that ran (their commands). */
  unknownDirty: string[];
  unknownEver: boolean;
  firstChangeStep: number | null;
  /** Steps in a row with neither a change nor a verification, since the first change. */
  stall: number;
  lastVerify: VerifyAttempt | null;
  /** Script sources written by the run (path → text), to judge `python script.py` later. */
  scripts: Record<string, string>;
  /** What each `git stash` put away (dirty paths, unknown changes), newest last. */
  stash: Array<{ dirty: string[]; unknown: string[] }>;
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

export function createPhaseLedger(root?: string): PhaseLedger {
  return {
    ...(root !== undefined ? { root } : {}),
    stepsTaken: 0,
    calls: 0,
    progress: false,
    filesRead: [],
    readsWithoutPath: 0,
    searchUsed: false,
    patchesProposed: 0,
    verifyUsed: false,
    files: {},
    unknownDirty: [],
    unknownEver: false,
    firstChangeStep: null,
    stall: 0,
    lastVerify: null,
    scripts: {},
    stash: [],
    openFile: null,
    warned: [],
    warningSteps: [],
    lastMissingStep: null,
    blocks: 0,
  };
}

const FILES_CAP = 5_000;
const SCRIPT_CAP = 8_000;
const SCRIPTS_CAP = 50;

/**
 * Records one step (a tick, or one recorded call in a replay): its calls in order, each call's
 * parts in order. Mutates `ledger` (callers hand it a draft or a copy).
 */
export function recordStep(
  ledger: PhaseLedger,
  calls: readonly PhaseCall[],
  options: PhaseGateOptions = {},
): void {
  ledger.stepsTaken++;
  const step = ledger.stepsTaken;
  let changedOrVerified = false;
  for (const call of calls) {
    ledger.calls++;
    let patched = false;
    for (const part of call.parts) {
      if (part.category !== 'discovery' && part.category !== 'other') ledger.progress = true;
      if (part.category === 'read') recordRead(ledger, part);
      else if (part.category === 'search') ledger.searchUsed = true;
      else if (part.category === 'patch') {
        patched = true;
        changedOrVerified = true;
        ledger.firstChangeStep ??= step;
        recordChange(ledger, part, call.label);
      } else if (part.category === 'verify') {
        const attempt = verifyAttempt(step, call.result, part);
        ledger.lastVerify = attempt;
        if (attempt.ran && (attempt.passed || !options.requirePassing)) {
          changedOrVerified = true;
          ledger.verifyUsed = true;
          for (const record of Object.values(ledger.files)) record.dirty = false;
          ledger.unknownDirty = [];
        }
      }
    }
    if (patched) ledger.patchesProposed++;
  }
  if (ledger.firstChangeStep !== null) ledger.stall = changedOrVerified ? 0 : ledger.stall + 1;
}

/** Remembers scripts a call wrote whole, so a later run of one can be judged by its source. */
export function rememberScripts(ledger: PhaseLedger, scripts: ReadonlyMap<string, string>): void {
  for (const [path, text] of scripts) {
    if (Object.keys(ledger.scripts).length >= SCRIPTS_CAP && !(path in ledger.scripts)) continue;
    ledger.scripts[path] = text.slice(0, SCRIPT_CAP);
  }
}

function verifyAttempt(
  step: number,
  result: CallResult | undefined,
  part: ShellPart,
): VerifyAttempt {
  const ran = verificationRan(result);
  const passed = ran && verificationPassed(result);
  return {
    step,
    ran,
    passed,
    ...(ran ? {} : { why: whyNotRun(result) }),
    ...(part.program !== undefined ? { program: part.program } : {}),
  };
}

/**
 * The key a path is recorded under: an absolute path and a relative one name the same file when
 * the absolute one ends with the relative one (`/testbed/a/b.py` and `a/b.py`), so the first
 * spelling seen is kept.
 */
function keyOf(ledger: PhaseLedger, raw: string): string {
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

function recordRead(ledger: PhaseLedger, part: ShellPart): void {
  if (part.paths.length === 0) {
    ledger.readsWithoutPath++;
    return;
  }
  for (const raw of part.paths) {
    const path = keyOf(ledger, raw);
    if (!ledger.filesRead.includes(path) && ledger.filesRead.length < FILES_CAP)
      ledger.filesRead.push(path);
    ledger.files[path] ??= { created: false, exists: true, changed: false, dirty: false };
  }
}

function recordChange(ledger: PhaseLedger, part: ShellPart, label: string): void {
  const unknownChange = () => {
    ledger.unknownEver = true;
    if (!ledger.unknownDirty.includes(label) && ledger.unknownDirty.length < 50)
      ledger.unknownDirty.push(label);
  };
  if (
    (part.unknownTargets || part.paths.length === 0) &&
    part.op !== 'stash' &&
    part.op !== 'unstash' &&
    part.op !== 'restore'
  ) {
    ledger.unknownEver = true;
    if (!ledger.unknownDirty.includes(label) && ledger.unknownDirty.length < 50)
      ledger.unknownDirty.push(label);
    return;
  }
  const touch = (raw: string, whole: boolean) => {
    const path = keyOf(ledger, raw);
    const known = ledger.files[path];
    if (known === undefined) {
      if (Object.keys(ledger.files).length >= FILES_CAP) return;
      ledger.files[path] = { created: whole, exists: true, changed: true, dirty: true };
      return;
    }
    if (!known.exists && whole) known.created = known.created || !known.changed;
    known.exists = true;
    known.changed = true;
    known.dirty = true;
  };
  const remove = (raw: string) => {
    const path = keyOf(ledger, raw);
    const pattern = globPattern(path);
    let matched = false;
    for (const [p, record] of Object.entries(ledger.files)) {
      if (p === path || p.startsWith(`${path}/`) || pattern?.test(p)) {
        matched = true;
        if (record.exists) {
          if (!record.changed) record.readOnlyBefore = true;
          record.exists = false;
          record.changed = true;
          record.dirty = true;
        }
      }
    }
    // A file the calls never showed before its deletion was made by a program the run ran
    // (a database, an image, a log) or never existed: the run's own, like a scratch file.
    if (!matched && pattern === undefined && Object.keys(ledger.files).length < FILES_CAP) {
      ledger.files[path] = { created: true, exists: false, changed: true, dirty: true };
    }
  };
  switch (part.op) {
    case 'delete':
      for (const p of part.paths) remove(p);
      break;
    case 'move': {
      const half = part.paths.length / 2;
      const sources =
        part.paths.length === 2 ? part.paths.slice(0, 1) : part.paths.slice(0, Math.floor(half));
      const dests =
        part.paths.length === 2 ? part.paths.slice(1) : part.paths.slice(Math.floor(half));
      for (const p of sources) remove(p);
      for (const p of dests) touch(p, true);
      break;
    }
    case 'stash':
      // The working tree goes back to the commit; `unstash` brings these changes back as they were.
      ledger.stash.push({
        dirty: Object.entries(ledger.files)
          .filter(([, r]) => r.dirty && !r.created)
          .map(([p]) => p),
        unknown: [...ledger.unknownDirty],
      });
      for (const record of Object.values(ledger.files)) if (!record.created) record.dirty = false;
      ledger.unknownDirty = [];
      if (ledger.stash.length > 20) ledger.stash.shift();
      break;
    case 'unstash': {
      const saved = ledger.stash.pop();
      if (saved === undefined) {
        unknownChange();
        break;
      }
      // Verifications while the changes were put away verified the commit, not them.
      for (const p of saved.dirty) if (ledger.files[p]) ledger.files[p].dirty = true;
      for (const label of saved.unknown)
        if (!ledger.unknownDirty.includes(label)) ledger.unknownDirty.push(label);
      break;
    }
    case 'restore':
      // No paths: every tracked file (`git checkout .`, `git reset --hard`).
      if (part.paths.length === 0) {
        for (const record of Object.values(ledger.files)) {
          if (!record.created)
            Object.assign(record, { exists: true, changed: false, dirty: false });
        }
        break;
      }
      // Back to the state the run started from (`git checkout -- f`): no longer a change.
      for (const raw of part.paths) {
        const p = keyOf(ledger, raw);
        const known = ledger.files[p];
        if (known === undefined)
          ledger.files[p] = { created: false, exists: true, changed: false, dirty: false };
        else Object.assign(known, { exists: true, changed: false, dirty: false });
      }
      break;
    case 'write':
    case 'copy':
      for (const p of part.paths) touch(p, true);
      break;
    default:
      for (const p of part.paths) touch(p, false);
  }
}

function globPattern(path: string): RegExp | undefined {
  if (!/[*?[]/.test(path)) return undefined;
  const source = path
    .replace(/[.+^${}()|\\]/g, '\\$&')
    .replace(/\*/g, '[^/]*')
    .replace(/\?/g, '[^/]');
  return new RegExp(`^${source}$`);
}
