import { readCheckOutcome } from '../../checks/outcome/check-outcome.js';
import type { ShellPart } from '../../checks/shell-classifier/classify-shell-command.js';
import type { CallResult } from '../../checks/shell-classifier/ran.js';
import { checkKind } from './check-kind.js';
import {
  type CheckRecord,
  isUntested,
  keyOf,
  type PhaseLedger,
  untestedUnknowns,
  type VerifyAttempt,
} from './phase-ledger-state.js';
import type { PhaseCall, PhaseGateOptions } from './phase-types.js';
import { requiredLevel } from './verification-levels.js';

export {
  type CheckRecord,
  type FileRecord,
  findFile,
  isUntested,
  normalizeFilePath,
  type PhaseLedger,
  untestedUnknowns,
  type VerifyAttempt,
} from './phase-ledger-state.js';

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
  const level = requiredLevel(options);
  // Below 'passed' a failing check still moves the run on (and counts as a verification used).
  const failingCounts = level === 'any' || level === 'ran';
  let changedOrVerified = false;
  for (const [index, call] of calls.entries()) {
    ledger.calls++;
    let patched = false;
    for (const part of call.parts) {
      if (part.category !== 'discovery' && part.category !== 'other') ledger.progress = true;
      if (part.category === 'read') recordRead(ledger, part, call.result);
      else if (part.category === 'search') ledger.searchUsed = true;
      else if (part.category === 'patch') {
        patched = true;
        changedOrVerified = true;
        ledger.firstChangeStep ??= step;
        recordChange(ledger, part, call.label);
      } else if (part.category === 'verify') {
        const check = checkRecord(ledger, step, index, call, part);
        const attempt = verifyAttempt(step, check, part);
        ledger.lastVerify = attempt;
        ledger.lastAttempt = check;
        // A check that could not run verifies nothing, at any level.
        if (!attempt.ran) continue;
        ledger.lastCheck = check;
        // Files a runner really ran (it passed, or printed results) existed; an exit code 4 with
        // the output cut off may be pytest saying the file is not there.
        if (check.outcome === 'passed' || check.summary !== undefined)
          for (const target of part.suite ?? []) noteExisting(ledger, target);
        if (attempt.passed || failingCounts) {
          changedOrVerified = true;
          ledger.verifyUsed = true;
        }
        for (const record of Object.values(ledger.files)) record.dirty = false;
        ledger.unknownDirty = [];
        if (check.kind === 'project-tests') {
          ledger.lastProjectTests = check;
          for (const record of Object.values(ledger.files)) record.untested = false;
          ledger.unknownUntested = [];
        }
      }
    }
    if (patched) ledger.patchesProposed++;
  }
  if (ledger.firstChangeStep !== null) ledger.stall = changedOrVerified ? 0 : ledger.stall + 1;
}

/**
 * A test file the runner ran that the calls had not shown: it existed before the run, so a
 * later whole rewrite of it is an edit, not a file the run created.
 */
function noteExisting(ledger: PhaseLedger, target: string): void {
  if (!/\.\w+$/.test(target) || Object.keys(ledger.files).length >= FILES_CAP) return;
  const path = keyOf(ledger, target);
  ledger.files[path] ??= { created: false, exists: true, changed: false, dirty: false };
}

function checkRecord(
  ledger: PhaseLedger,
  step: number,
  call: number,
  { label, result }: PhaseCall,
  part: ShellPart,
): CheckRecord {
  const reading = readCheckOutcome(
    result,
    part.exitCodeHidden === true ? { exitCodeHidden: true } : {},
  );
  return {
    step,
    call,
    label: label.length > 120 ? `${label.slice(0, 117)}...` : label,
    ...(part.program !== undefined ? { program: part.program } : {}),
    kind: checkKind(ledger, part),
    outcome: reading.outcome,
    ...(reading.why !== undefined ? { why: reading.why } : {}),
    ...(reading.summary !== undefined ? { summary: reading.summary } : {}),
    ...(reading.exitCode !== undefined ? { exitCode: reading.exitCode } : {}),
  };
}

/** Remembers scripts a call wrote whole, so a later run of one can be judged by its source. */
export function rememberScripts(ledger: PhaseLedger, scripts: ReadonlyMap<string, string>): void {
  for (const [path, text] of scripts) {
    if (Object.keys(ledger.scripts).length >= SCRIPTS_CAP && !(path in ledger.scripts)) continue;
    ledger.scripts[path] = text.slice(0, SCRIPT_CAP);
  }
}

function verifyAttempt(step: number, check: CheckRecord, part: ShellPart): VerifyAttempt {
  const ran = check.outcome !== 'error';
  return {
    step,
    ran,
    passed: ran && check.outcome !== 'failed',
    ...(check.why !== undefined ? { why: check.why } : {}),
    ...(part.program !== undefined ? { program: part.program } : {}),
  };
}

function recordRead(ledger: PhaseLedger, part: ShellPart, result?: CallResult): void {
  if (part.paths.length === 0) {
    ledger.readsWithoutPath++;
    return;
  }
  for (const raw of part.paths) {
    const path = keyOf(ledger, raw);
    if (!ledger.filesRead.includes(path) && ledger.filesRead.length < FILES_CAP)
      ledger.filesRead.push(path);
    // A read that found nothing (`cat: x.py: No such file or directory`): a later write of
    // the whole file makes it, and the run then owns it.
    if (ledger.files[path] === undefined && saysMissing(result, raw)) {
      ledger.files[path] = { created: false, exists: false, changed: false, dirty: false };
      continue;
    }
    ledger.files[path] ??= { created: false, exists: true, changed: false, dirty: false };
  }
}

/** The call's output says this file is not there. */
function saysMissing(result: CallResult | undefined, raw: string): boolean {
  const output = result?.output;
  if (output === undefined || output === '') return false;
  const name = raw.slice(raw.lastIndexOf('/') + 1);
  if (name === '') return false;
  for (const line of output.slice(0, 4_000).split('\n')) {
    if (line.includes(name) && /No such file or directory|\bnot found\b|does not exist/i.test(line))
      return true;
  }
  return false;
}

function recordChange(ledger: PhaseLedger, part: ShellPart, label: string): void {
  if (
    (part.unknownTargets || part.paths.length === 0) &&
    part.op !== 'stash' &&
    part.op !== 'unstash' &&
    part.op !== 'restore'
  ) {
    recordUnknownChange(ledger, label);
    return;
  }
  switch (part.op) {
    case 'delete':
      for (const p of part.paths) recordRemove(ledger, p);
      break;
    case 'move': {
      const half = part.paths.length / 2;
      const sources =
        part.paths.length === 2 ? part.paths.slice(0, 1) : part.paths.slice(0, Math.floor(half));
      const dests =
        part.paths.length === 2 ? part.paths.slice(1) : part.paths.slice(Math.floor(half));
      for (const p of sources) recordRemove(ledger, p);
      for (const p of dests) recordTouch(ledger, p, true);
      break;
    }
    case 'stash':
      recordStash(ledger);
      break;
    case 'unstash':
      recordUnstash(ledger, label);
      break;
    case 'restore':
      recordRestore(ledger, part.paths);
      break;
    case 'write':
    case 'copy':
      for (const p of part.paths) recordTouch(ledger, p, true);
      break;
    default:
      for (const p of part.paths) recordTouch(ledger, p, false);
  }
}

/** A change whose targets the classifier could not name. */
function recordUnknownChange(ledger: PhaseLedger, label: string): void {
  ledger.unknownEver = true;
  if (!ledger.unknownDirty.includes(label) && ledger.unknownDirty.length < 50)
    ledger.unknownDirty.push(label);
  const untested = untestedUnknowns(ledger);
  if (!untested.includes(label) && untested.length < 50)
    ledger.unknownUntested = [...untested, label];
}

/** A write to `raw`; `whole` when the file is written from scratch (write, copy, move target). */
function recordTouch(ledger: PhaseLedger, raw: string, whole: boolean): void {
  const path = keyOf(ledger, raw);
  const known = ledger.files[path];
  if (known === undefined) {
    if (Object.keys(ledger.files).length >= FILES_CAP) return;
    ledger.files[path] = {
      created: whole,
      exists: true,
      changed: true,
      dirty: true,
      untested: true,
    };
    return;
  }
  if (!known.exists && whole) known.created = known.created || !known.changed;
  known.exists = true;
  known.changed = true;
  known.dirty = true;
  known.untested = true;
}

/** A deletion of `raw`: the file, everything under it, or what its glob matches. */
function recordRemove(ledger: PhaseLedger, raw: string): void {
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
        record.untested = true;
      }
    }
  }
  // A file the calls never showed before its deletion was made by a program the run ran
  // (a database, an image, a log) or never existed: the run's own, like a scratch file.
  if (!matched && pattern === undefined && Object.keys(ledger.files).length < FILES_CAP) {
    ledger.files[path] = {
      created: true,
      exists: false,
      changed: true,
      dirty: true,
      untested: true,
    };
  }
}

/** The working tree goes back to the commit; `unstash` brings these changes back as they were. */
function recordStash(ledger: PhaseLedger): void {
  ledger.stash.push({
    dirty: Object.entries(ledger.files)
      .filter(([, r]) => r.dirty && !r.created)
      .map(([p]) => p),
    unknown: [...ledger.unknownDirty],
    untested: Object.entries(ledger.files)
      .filter(([, r]) => isUntested(r) && !r.created)
      .map(([p]) => p),
  });
  for (const record of Object.values(ledger.files)) {
    if (record.created) continue;
    record.dirty = false;
    record.untested = false;
  }
  ledger.unknownDirty = [];
  ledger.unknownUntested = [];
  if (ledger.stash.length > 20) ledger.stash.shift();
}

function recordUnstash(ledger: PhaseLedger, label: string): void {
  const saved = ledger.stash.pop();
  if (saved === undefined) {
    recordUnknownChange(ledger, label);
    return;
  }
  // Verifications while the changes were put away verified the commit, not them.
  for (const p of saved.dirty) if (ledger.files[p]) ledger.files[p].dirty = true;
  for (const p of saved.untested ?? saved.dirty)
    if (ledger.files[p]) ledger.files[p].untested = true;
  for (const unknown of saved.unknown)
    if (!ledger.unknownDirty.includes(unknown)) ledger.unknownDirty.push(unknown);
  ledger.unknownUntested = [...new Set([...untestedUnknowns(ledger), ...saved.unknown])];
}

function recordRestore(ledger: PhaseLedger, paths: readonly string[]): void {
  // No paths: every tracked file (`git checkout .`, `git reset --hard`).
  if (paths.length === 0) {
    for (const record of Object.values(ledger.files)) {
      if (!record.created)
        Object.assign(record, { exists: true, changed: false, dirty: false, untested: false });
    }
    return;
  }
  // Back to the state the run started from (`git checkout -- f`): no longer a change.
  for (const raw of paths) {
    const p = keyOf(ledger, raw);
    const known = ledger.files[p];
    if (known === undefined)
      ledger.files[p] = {
        created: false,
        exists: true,
        changed: false,
        dirty: false,
        untested: false,
      };
    else Object.assign(known, { exists: true, changed: false, dirty: false, untested: false });
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
