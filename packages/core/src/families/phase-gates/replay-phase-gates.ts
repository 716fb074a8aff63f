import type { ShellPart } from '../../checks/shell-classifier/classify-shell-command.js';
import type { CallResult } from '../../checks/shell-classifier/ran.js';
import type { ToolCategory } from '../../checks/tool-category.js';
import { AgateError, nameErrorClass } from '../../ground/agate-error.js';
import { commandOf } from './call-parts.js';
import type { CheckRecord } from './phase-ledger.js';
import { createPhaseLedger } from './phase-ledger.js';
import { advance, callToPhaseCall, decideExitAttempt, type StepOutcome } from './phase-tracker.js';
import type { PhaseGateOptions, PhaseName, PhaseTools, PhaseWarningKind } from './phase-types.js';
import { levelMet, type VerificationLevelMet } from './verification-levels.js';

/** One recorded tool call: `{ tool, input, result }`; `tool: 'none'` is a turn without a call. */
export interface ReplayStep {
  tool: string;
  input?: unknown;
  result?: CallResult;
}

export interface ReplayOptions extends PhaseGateOptions {
  /**
   * Each tool's category, or `'shell'` to classify every call's command. A tool missing here
   * counts as `other` (it neither changes nor verifies anything) and is listed in
   * `unmappedTools`; with `strict: true` a missing tool throws instead.
   */
  tools: Record<string, ToolCategory | 'shell'>;
  /** Throw an `UnmappedToolsError` naming every tool the mapping does not cover. Default false. */
  strict?: boolean;
  /** The repository root: `<root>/a.py`, `./a.py` and `a.py` are then one file. */
  root?: string;
  /** The files that differ from the start at the end (stands in for the workspace). */
  workProduct?: readonly string[];
  /** The task, for the escalation's `hint`. */
  taskText?: string;
}

/**
 * What the run amounts to. `verified`: it changed the work product and a verification that ran
 * came after the last change. `unverified`: it changed it and none did. `no-change`: it changed
 * nothing that counts (then `phases.verification` is false too, but nothing was left unchecked).
 */
export type ReplayVerdict = 'verified' | 'unverified' | 'no-change';

export interface ReplayResult {
  phases: { understanding: boolean; change: boolean; verification: boolean };
  verdict: ReplayVerdict;
  /** Every tool the run called that `tools` does not map, with how many calls; most called first. */
  unmappedTools: Array<{ tool: string; calls: number }>;
  /** What block mode would do at the finish (after the last step). */
  exit: { refused: boolean; missing: PhaseName[]; reasons: string[] };
  /** Changes that needed a later verification that ran and had none. */
  unverified: string[];
  /** Warnings as the run would have seen them; `step` is the index of the step they follow. */
  warnings: Array<{ step: number; kind: PhaseWarningKind; text: string }>;
  /** Each step's classified parts. */
  parts: ShellPart[][];
  /**
   * The strictest verification level the finish meets (`'none'`: not even `'ran'`), whatever
   * level `verification` asks for; `'project-tests'` includes `'project-tests-once'` includes
   * `'passed'` includes `'ran'`.
   */
  level: VerificationLevelMet;
  /**
   * The last check attempted, with its outcome: `'error'` (with `why`) when it could not run —
   * the command, runner, module or JDK missing, a timeout — and then it verified nothing.
   */
  lastAttempt?: ReplayCheck;
  /** The last check that ran, with its outcome and whose it was (absent: none ran). */
  lastCheck?: ReplayCheck;
  /** The last run of the project's own tests (absent: they never ran). */
  lastProjectTests?: ReplayCheck;
}

/** A check as the replay reports it; `step` is the index of its step in `steps`. */
export type ReplayCheck = Omit<CheckRecord, 'call'>;

/**
 * Runs the phase-gate logic over a recorded run — pure, no React, no model. Each recorded call
 * is one step; the finish is judged after the last one, as block mode would judge it.
 */
export function replayPhaseGates(
  steps: readonly ReplayStep[],
  options: ReplayOptions,
): ReplayResult {
  const unmappedTools = unmappedToolsOf(steps, options.tools);
  if (options.strict === true && unmappedTools.length > 0) {
    throw new UnmappedToolsError(unmappedTools);
  }
  const ledger = createPhaseLedger(options.root);
  const tools = toolsOf(options.tools);
  const warnings: ReplayResult['warnings'] = [];
  const parts: ShellPart[][] = [];
  let last: StepOutcome | undefined;
  for (const [index, step] of steps.entries()) {
    // `none`: a turn in which the agent called nothing (a step, but not a call).
    if (step.tool === 'none' && options.tools.none === undefined) {
      parts.push([]);
      last = advance(ledger, [], tools, options, options.taskText);
      if (last.warning) warnings.push({ step: index, ...last.warning });
      continue;
    }
    const declared = options.tools[step.tool];
    const category =
      declared === 'shell'
        ? ({ kind: 'shell', command: commandOf(step.input) } as const)
        : ({ kind: 'fixed', categories: [declared ?? 'other'] } as const);
    const call = callToPhaseCall(
      ledger,
      step.tool,
      category,
      step.input,
      step.result,
      options.testCommands,
    );
    parts.push([...call.parts]);
    last = advance(ledger, [call], tools, options, options.taskText);
    if (last.warning) warnings.push({ step: index, ...last.warning });
  }
  last ??= advance(ledger, [], tools, options, options.taskText);
  const exit = decideExitAttempt(ledger, last.status, last.judgement, tools, {
    ...options,
    maxBlocks: Number.POSITIVE_INFINITY,
  });
  const { understanding, change, verification } = last.status;
  return {
    phases: { understanding, change, verification },
    verdict: !last.judgement.changed ? 'no-change' : verification ? 'verified' : 'unverified',
    unmappedTools,
    exit:
      exit.kind === 'allow'
        ? { refused: false, missing: [], reasons: [] }
        : { refused: true, missing: exit.missing, reasons: exit.reasons },
    unverified: last.judgement.unverified,
    warnings,
    parts,
    level: levelMet(ledger, last.judgement),
    ...(ledger.lastAttempt ? { lastAttempt: replayCheck(ledger.lastAttempt) } : {}),
    ...(ledger.lastCheck ? { lastCheck: replayCheck(ledger.lastCheck) } : {}),
    ...(ledger.lastProjectTests ? { lastProjectTests: replayCheck(ledger.lastProjectTests) } : {}),
  };
}

function replayCheck({ call: _call, ...check }: CheckRecord): ReplayCheck {
  // Each recorded call is one step, counted from 1 in the ledger.
  return { ...check, step: check.step - 1 };
}

/** The replay's mapping misses tools the run called (`strict: true`). */
export class UnmappedToolsError extends AgateError {
  static {
    nameErrorClass(UnmappedToolsError, 'UnmappedToolsError');
  }
  readonly tools: ReadonlyArray<{ tool: string; calls: number }>;
  constructor(tools: ReadonlyArray<{ tool: string; calls: number }>) {
    super(
      `The tools mapping does not cover ${tools.map((t) => `"${t.tool}" (${t.calls} call${t.calls === 1 ? '' : 's'})`).join(', ')}. ` +
        "Unmapped tools count as 'other': they neither change nor verify anything, so a run that edits " +
        "files through one looks like it changed nothing. Map each to a category or 'shell'.",
    );
    this.tools = tools;
  }
}

function unmappedToolsOf(
  steps: readonly ReplayStep[],
  declared: Record<string, ToolCategory | 'shell'>,
): Array<{ tool: string; calls: number }> {
  const counts = new Map<string, number>();
  for (const step of steps) {
    if (step.tool === 'none' || Object.hasOwn(declared, step.tool)) continue;
    counts.set(step.tool, (counts.get(step.tool) ?? 0) + 1);
  }
  return [...counts]
    .map(([tool, calls]) => ({ tool, calls }))
    .sort((a, b) => b.calls - a.calls || (a.tool < b.tool ? -1 : 1));
}

function toolsOf(declared: Record<string, ToolCategory | 'shell'>): PhaseTools {
  const tools: PhaseTools = { byCategory: {}, shell: [], dynamic: [] };
  for (const [name, category] of Object.entries(declared)) {
    if (category === 'shell') tools.shell.push(name);
    else tools.byCategory[category] = [...(tools.byCategory[category] ?? []), name];
  }
  return tools;
}
