import type { ShellPart } from '../../checks/shell-classifier/classify-shell-command.js';
import type { CallResult } from '../../checks/shell-classifier/ran.js';
import type { ToolCategory, ToolCategoryProp } from '../../checks/tool-category.js';

/**
 * How strictly the verification phase judges the checks after the last change; each level
 * includes the ones before it: `'ran'` < `'passed'` < `'project-tests-once'` <
 * `'project-tests'`.
 */
export type VerificationLevel = 'ran' | 'passed' | 'project-tests-once' | 'project-tests';

/** Evidence behind the phases (the seed's names, for telemetry and readers). */
export interface PhaseEvidence {
  /** Distinct paths read (a read without a path counts once per call). */
  filesRead: number;
  /** A search tool was called. */
  searchUsed: boolean;
  /** Calls that changed something. */
  patchesProposed: number;
  /** A verification ran (and did not fail, at the `'passed'` level and above). */
  verifyUsed: boolean;
  /** At least two tool calls and none of them progress (search, read, patch, verify). */
  noProgressYet: boolean;
  /** Ticks (steps) so far in this run. */
  stepsTaken: number;
}

/** The phases of a run: looked, changed, verified; readiness is all three. */
export interface PhaseStatus {
  /** Files were read, and a search ran or something was changed. */
  understanding: boolean;
  /** Something was changed (a patch). */
  change: boolean;
  /** A verification ran, at the level `verification` asks for. */
  verification: boolean;
  /** All three phases are done: the run may finish. */
  readiness: boolean;
  /** What the phases were judged on. */
  evidence: PhaseEvidence;
}

export type PhaseName = 'understanding' | 'change' | 'verification';

export type PhaseWarningKind = 'no-progress' | 'escalation' | 'missing' | 'stall';

export interface PhaseWarning {
  kind: PhaseWarningKind;
  text: string;
}

export interface VerificationJudgement {
  /** Changes that need a later verification and have none (paths, or `(unknown targets) <command>`). */
  unverified: string[];
  /** The run made a change that needs verifying (to the work product, or to unknown targets). */
  changed: boolean;
  /** Changes that need verifying made since the project's own tests last ran. */
  untested: string[];
}

/** Options shared by `evaluatePhaseGates`, `replayPhaseGates` and `<PhaseGates>`. */
export interface PhaseGateOptions {
  /**
   * What the verification phase needs after the last change that needs verifying:
   * - `'ran'` (default): a check that ran (a failing one too);
   * - `'passed'`: that, and the last check did not fail (by its exit code, or else its test
   *   runner's summary; a check whose outcome cannot be told does not fail);
   * - `'project-tests'`: that, and the project's own tests ran and did not fail — a script the
   *   agent wrote in this run never counts as them;
   * - `'project-tests-once'`: `'passed'`, and the project's own tests ran at least once in the
   *   run (before or after the change) — and when they ran after the last change, the last of
   *   those runs did not fail.
   *
   * `'any'`: any check that ran, anywhere in the run (the seed's looser rule).
   */
  verification?: VerificationLevel | 'any';
  /**
   * The project's own test commands, when the runner is not one the phase gates know
   * (`['make check', /^\.\/ci\/test\b/]`): a shell command that is one of them (a string
   * followed by its arguments) runs the project's tests.
   */
  testCommands?: readonly (string | RegExp)[];
  /**
   * What needs verifying. `'work-product'` (default): changes to files that are part of the
   * result (not scratch files the run created and deleted, `/tmp`, build output).
   * `'every-file-operation'`: every change, scratch files included (the naive rule).
   */
  changes?: 'work-product' | 'every-file-operation';
  /** Steps with no progress before the CRITICAL escalation. Default 6. */
  maxNoProgressSteps?: number;
  /** Steps before the "what is missing" warnings start. Default 5. */
  warnAfter?: number;
  /** At most one "what is missing" warning every this many steps. Default 3. */
  warnEvery?: number;
  /** Steps in a row with neither a change nor a verification, after the first change, before the stall warning. Default 5. */
  stallAfter?: number;
  /** A suggested first action for the escalation, from the task text. */
  hint?: (taskText: string) => string | undefined;
}

/** One tool call as `evaluatePhaseGates` takes it. */
export interface PhaseStep {
  tick: number;
  toolName: string;
  /** A category, `'shell'` (classify `input.command`), or the ordered categories of the call's parts. */
  category: ToolCategory | 'shell' | readonly ToolCategory[];
  input: unknown;
  /** What the call returned, to tell whether a verification ran (and passed). */
  result?: CallResult;
}

/** One call as the tracker records it: its parts, already classified. */
export interface PhaseCall {
  toolName: string;
  parts: readonly ShellPart[];
  result?: CallResult;
  /** The command or call, shown when its targets are unknown. */
  label: string;
}

/** The tools a message may name, by what their calls can be. */
export interface PhaseTools {
  /** Tools with one category for every call. */
  byCategory: Partial<Record<ToolCategory, string[]>>;
  /** Tools whose calls are classified one by one (`category="shell"`). */
  shell: string[];
  /** Tools whose category is a function of the input. */
  dynamic: string[];
}

/** How tools are declared, for the replay: `tools: { bash: 'shell', read_file: 'read' }`. */
export type PhaseToolCategories = Record<string, ToolCategory | 'shell'>;

export type { ToolCategoryProp };
