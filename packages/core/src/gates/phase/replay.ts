import type { ToolCategory } from './category.js';
import { createPhaseLedger } from './ledger.js';
import { commandOf } from './parts.js';
import type { ShellPart } from './shell/classify.js';
import type { CallResult } from './shell/ran.js';
import { advance, callToPhaseCall, decideExitAttempt, type StepOutcome } from './tracker.js';
import type { PhaseGateOptions, PhaseName, PhaseTools, PhaseWarningKind } from './types.js';

/** One recorded tool call: `{ tool, input, result }`; `tool: 'none'` is a turn without a call. */
export interface ReplayStep {
  tool: string;
  input?: unknown;
  result?: CallResult;
}

export interface ReplayOptions extends PhaseGateOptions {
  /** Each tool's category, or `'shell'` to classify every call's command. Others are `other`. */
  tools: Record<string, ToolCategory | 'shell'>;
  /** The files that differ from the start at the end (stands in for the workspace). */
  workProduct?: readonly string[];
  /** The task, for the escalation's `hint`. */
  taskText?: string;
}

export interface ReplayResult {
  phases: { understanding: boolean; change: boolean; verification: boolean };
  /** What block mode would do at the finish (after the last step). */
  exit: { refused: boolean; missing: PhaseName[]; reasons: string[] };
  /** Changes that needed a later verification that ran and had none. */
  unverified: string[];
  /** Warnings as the run would have seen them; `step` is the index of the step they follow. */
  warnings: Array<{ step: number; kind: PhaseWarningKind; text: string }>;
  /** Each step's classified parts. */
  parts: ShellPart[][];
}

/**
 * Runs the phase-gate logic over a recorded run — pure, no React, no model. Each recorded call
 * is one step; the finish is judged after the last one, as block mode would judge it.
 */
export function replayPhaseGates(
  steps: readonly ReplayStep[],
  options: ReplayOptions,
): ReplayResult {
  const ledger = createPhaseLedger();
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
    const call = callToPhaseCall(ledger, step.tool, category, step.input, step.result);
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
    exit:
      exit.kind === 'allow'
        ? { refused: false, missing: [], reasons: [] }
        : { refused: true, missing: exit.missing, reasons: exit.reasons },
    unverified: last.judgement.unverified,
    warnings,
    parts,
  };
}

function toolsOf(declared: Record<string, ToolCategory | 'shell'>): PhaseTools {
  const tools: PhaseTools = { byCategory: {}, shell: [], dynamic: [] };
  for (const [name, category] of Object.entries(declared)) {
    if (category === 'shell') tools.shell.push(name);
    else tools.byCategory[category] = [...(tools.byCategory[category] ?? []), name];
  }
  return tools;
}
