import type { ShellPart } from '../../checks/shell-classifier/classify-shell-command.js';
import type { CallResult } from '../../checks/shell-classifier/ran.js';
import type { ToolCategory } from '../../checks/tool-category.js';
import { commandOf, partsForCategories, partsForShell, scriptsOf } from './call-parts.js';
import { judgeFromCalls, phaseStatus, type VerificationJudgement } from './phase-judge.js';
import { type PhaseLedger, recordStep, rememberScripts } from './phase-ledger.js';
import {
  escalationWarning,
  missingLines,
  missingWarning,
  noProgressWarning,
  refusalNotice,
  refusalReason,
  stallWarning,
} from './phase-messages.js';
import type {
  PhaseCall,
  PhaseGateOptions,
  PhaseName,
  PhaseStatus,
  PhaseTools,
  PhaseWarning,
} from './phase-types.js';
import { requiredLevel } from './verification-levels.js';

export const PHASE_DEFAULTS = {
  maxNoProgressSteps: 6,
  warnAfter: 5,
  warnEvery: 3,
  stallAfter: 5,
  maxBlocks: 5,
} as const;

/** How one call's category is known: fixed, per call from its command, or from a function. */
export type CallCategory =
  | { kind: 'fixed'; categories: readonly ToolCategory[] }
  | { kind: 'shell'; command: string | undefined };

export type TrackerOptions = PhaseGateOptions & { workProduct?: readonly string[] };

/** Classifies one call into its parts and remembers any script it wrote (mutates the ledger). */
export function callToPhaseCall(
  ledger: PhaseLedger,
  toolName: string,
  category: CallCategory,
  input: unknown,
  result: CallResult | undefined,
  testCommands?: readonly (string | RegExp)[],
): PhaseCall {
  if (category.kind === 'fixed') {
    const parts = partsForCategories(category.categories, input, toolName);
    // A per-tool write with content is remembered too (a `write_file` of `fix.py`).
    if (parts.some((p) => p.category === 'patch'))
      rememberScripts(ledger, scriptsOf(input, undefined));
    return {
      toolName,
      parts,
      ...(result ? { result } : {}),
      label: `${toolName} ${labelOf(input)}`.trim(),
    };
  }
  // Scripts this very command writes count too (`cat > fix.py <<EOF … EOF && python fix.py`).
  rememberScripts(ledger, scriptsOf(input, category.command));
  const scripts = new Map(Object.entries(ledger.scripts));
  const parts = partsForShell(input, category.command, scripts, toolName, {
    ...(ledger.openFile !== null ? { openFile: ledger.openFile } : {}),
    ...(testCommands !== undefined ? { testCommands } : {}),
  });
  // The last file an editor-style agent opened or created is what its next `edit` changes.
  for (const p of parts) {
    if ((p.program === 'open' || p.program === 'create') && p.paths[0] !== undefined)
      ledger.openFile = p.paths[0];
  }
  if (isEditorCall(input, parts, toolName) && !(ledger.editorTools ?? []).includes(toolName))
    ledger.editorTools = [...(ledger.editorTools ?? []), toolName];
  const label = category.command ?? labelOf(input);
  return {
    toolName,
    parts,
    ...(result ? { result } : {}),
    label: label.length > 120 ? `${label.slice(0, 117)}...` : label,
  };
}

/** A shell tool's call read as an editor operation (no command line was run). */
function isEditorCall(input: unknown, parts: readonly ShellPart[], toolName: string): boolean {
  return (
    parts.length > 0 &&
    parts.every((p) => p.program === toolName) &&
    (commandOf(input) === undefined || EDITOR_COMMANDS.has(commandOf(input) ?? ''))
  );
}
const EDITOR_COMMANDS = new Set(['view', 'create', 'write', 'str_replace', 'insert', 'undo_edit']);

/** The tools as messages name them: shell tools seen only as editors offered for reading and changing. */
export function namedTools(tools: PhaseTools, ledger: PhaseLedger): PhaseTools {
  const editors = (ledger.editorTools ?? []).filter((t) => tools.shell.includes(t));
  if (editors.length === 0) return tools;
  const byCategory = { ...tools.byCategory };
  for (const c of ['read', 'patch'] as const)
    byCategory[c] = [...(byCategory[c] ?? []), ...editors];
  return { ...tools, byCategory, shell: tools.shell.filter((t) => !editors.includes(t)) };
}

function labelOf(input: unknown): string {
  try {
    const text = JSON.stringify(input) ?? '';
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
  } catch {
    return '';
  }
}

export interface StepOutcome {
  status: PhaseStatus;
  judgement: VerificationJudgement;
  warning?: PhaseWarning;
}

/** Records a step and decides its warning (both modes). Mutates the ledger. */
export function advance(
  ledger: PhaseLedger,
  calls: readonly PhaseCall[],
  tools: PhaseTools,
  options: TrackerOptions,
  taskText = '',
): StepOutcome {
  recordStep(ledger, calls, options);
  const judgement = judgeFromCalls(ledger, options);
  const status = phaseStatus(ledger, options, judgement);
  const warning = decideWarning(
    ledger,
    status,
    judgement,
    namedTools(tools, ledger),
    options,
    taskText,
  );
  return { status, judgement, ...(warning ? { warning } : {}) };
}

const WINDOW = 10;
const WINDOW_MAX = 4;

/**
 * At most one warning a step, by priority: escalation, no progress, stall, what is missing.
 * Each once-only warning is remembered; "what is missing" comes at most every `warnEvery`
 * steps and never twice with the same text; no more than 4 warnings over any 10 steps.
 */
export function decideWarning(
  ledger: PhaseLedger,
  status: PhaseStatus,
  judgement: VerificationJudgement,
  tools: PhaseTools,
  options: TrackerOptions,
  taskText: string,
  memo?: MissingMemo,
): PhaseWarning | undefined {
  const step = ledger.stepsTaken;
  const recent = ledger.warningSteps.filter((s) => s > step - WINDOW);
  if (recent.length >= WINDOW_MAX) return undefined;
  const maxNoProgress = options.maxNoProgressSteps ?? PHASE_DEFAULTS.maxNoProgressSteps;
  const warned = ledger.warned;

  if (status.evidence.noProgressYet) {
    if (step >= maxNoProgress && !warned.includes('escalation')) {
      const hint = options.hint?.(taskText);
      return give(ledger, recent, 'escalation', {
        kind: 'escalation',
        text: escalationWarning(step, tools, hint),
      });
    }
    if (!warned.includes('no-progress'))
      return give(ledger, recent, 'no-progress', {
        kind: 'no-progress',
        text: noProgressWarning(tools),
      });
  }
  const stallAfter = options.stallAfter ?? PHASE_DEFAULTS.stallAfter;
  if (ledger.firstChangeStep !== null && ledger.stall >= stallAfter) {
    const key = `stall@${step - ledger.stall}`;
    if (!warned.includes(key))
      return give(ledger, recent, key, {
        kind: 'stall',
        text: stallWarning(ledger.stall, judgement.unverified, tools),
      });
  }
  const warnAfter = options.warnAfter ?? PHASE_DEFAULTS.warnAfter;
  const warnEvery = options.warnEvery ?? PHASE_DEFAULTS.warnEvery;
  if (step >= warnAfter && !status.readiness) {
    if (ledger.lastMissingStep !== null && step - ledger.lastMissingStep < warnEvery)
      return undefined;
    const { lines, key } = missingNow(status, ledger, judgement, tools, options, memo);
    if (warned.includes(key)) return undefined;
    ledger.lastMissingStep = step;
    return give(ledger, recent, key, { kind: 'missing', text: missingWarning(step, lines) });
  }
  return undefined;
}

/**
 * What a caller that decides every step keeps between steps (the guard): the "what is missing"
 * lines of the last step before any change, which depend only on the status's flags and the
 * tools. Once such a warning was given, every later step asks again; this keeps it from being
 * described anew each time.
 */
export interface MissingMemo {
  last?: { flags: string; tools: PhaseTools; lines: MissingLine[]; key: string };
}

type MissingLine = ReturnType<typeof missingLines>[number];

function missingNow(
  status: PhaseStatus,
  ledger: PhaseLedger,
  judgement: VerificationJudgement,
  tools: PhaseTools,
  options: TrackerOptions,
  memo: MissingMemo | undefined,
): { lines: MissingLine[]; key: string } {
  // With a change, the lines also name the changed files and the last verification: not kept.
  const { evidence } = status;
  const flags = status.change
    ? undefined
    : `${status.understanding}:${evidence.filesRead === 0}:${evidence.searchUsed}:${evidence.patchesProposed === 0}`;
  const last = memo?.last;
  if (flags !== undefined && last?.flags === flags && last.tools === tools) return last;
  const lines = missingLines(status, ledger, judgement, tools, requiredLevel(options));
  const key = `missing:${lines.map((l) => l.text).join('|')}`;
  if (memo !== undefined && flags !== undefined) memo.last = { flags, tools, lines, key };
  return { lines, key };
}

/**
 * Remembers a warning given at this step. New arrays, not pushes: the ledger may be a shallow
 * copy whose arrays are still the frozen ones of the state it came from.
 */
function give(
  ledger: PhaseLedger,
  recent: number[],
  key: string,
  warning: PhaseWarning,
): PhaseWarning {
  ledger.warned = [...ledger.warned, key];
  ledger.warningSteps = [...recent, ledger.stepsTaken];
  return warning;
}

export type PhaseExit =
  | { kind: 'allow' }
  | { kind: 'refuse' | 'end'; missing: PhaseName[]; reasons: string[]; notice: string };

/** Block mode at an exit attempt: refuse while readiness is false, bounded by `maxBlocks`. Mutates the ledger's block count. */
export function decideExitAttempt(
  ledger: PhaseLedger,
  status: PhaseStatus,
  judgement: VerificationJudgement,
  tools: PhaseTools,
  options: TrackerOptions & { maxBlocks?: number },
): PhaseExit {
  if (status.readiness) return { kind: 'allow' };
  const named = namedTools(tools, ledger);
  const lines = missingLines(status, ledger, judgement, named, requiredLevel(options));
  const maxBlocks = options.maxBlocks ?? PHASE_DEFAULTS.maxBlocks;
  ledger.blocks++;
  const missing = lines.map((l) => l.phase);
  const reasons = lines.map((l) => refusalReason(l.text, ledger.blocks, maxBlocks));
  if (ledger.blocks > maxBlocks) {
    return {
      kind: 'end',
      missing,
      reasons,
      notice: `Phase gates refused ${ledger.blocks} attempts to finish (maxBlocks ${maxBlocks}) and the work is still incomplete: ${lines.map((l) => l.text).join('; ')}.`,
    };
  }
  return {
    kind: 'refuse',
    missing,
    reasons,
    notice: refusalNotice(lines, ledger.blocks, maxBlocks),
  };
}

export type { ShellPart };
