import { createDraft, finishDraft } from 'immer';
import { type CallResult, verificationRan } from '../../checks/shell-classifier/ran.js';
import {
  checkCategoryProp,
  isToolCategory,
  type ToolCategory,
} from '../../checks/tool-category.js';
import type {
  ExitVerdict,
  Guard,
  GuardContribution,
  GuardHost,
  GuardTick,
  RunStartInfo,
  ToolCallOutcome,
} from '../../guard-seam/guard-family.js';
import type { CompiledTree } from '../../renderer/compile.js';
import type { CompiledContext, CompiledTool } from '../../renderer/compiled-context.js';
import { defineToolProp, functionPropCheck } from '../../renderer/tool-props.js';
import type { RunReport } from '../../runtime/session-options.js';
import { sameItems } from '../../runtime/tool-index.js';
import type { TickResult } from '../../state/tick-result.js';
import { deepFreeze } from '../../state/update.js';
import { type Fingerprint, fingerprintWorkspace } from '../../workspace/fingerprint.js';
import { commandOf } from './call-parts.js';
import { judgeWorkspace } from './judge-workspace.js';
import type { PhaseGatesProps } from './phase-gates-props.js';
import { judgeFromCalls, phaseStatus, type VerificationJudgement } from './phase-judge.js';
import { createPhaseLedger, type PhaseLedger, recordStep } from './phase-ledger.js';
import { fillPhasePrompt } from './phase-prompt.js';
import type { PhaseSessionState } from './phase-session-state.js';
import {
  type CallCategory,
  callToPhaseCall,
  decideExitAttempt,
  decideWarning,
  type MissingMemo,
  namedTools,
} from './phase-tracker.js';
import type { PhaseCall, PhaseStatus, PhaseTools } from './phase-types.js';

// The <Tool> props this family reads: what kind of work each call is.
defineToolProp('category', checkCategoryProp);
defineToolProp('shellCommand', functionPropCheck('shellCommand'));

export const PHASE_FAMILY = 'phase';
const REFUSER = 'phase-gates';

/**
 * The phase-gates family on the guard seam: records every tool call's parts (per call for shell
 * tools), keeps the phases in `session.state.phase`, injects warnings into the next request,
 * fingerprints the workspace at each verification that ran, and in block mode refuses to let
 * the run finish until understanding, change and verification hold (bounded by `maxBlocks`).
 * The decisions are the pure functions beside this file, shared with `replayPhaseGates`.
 */
type PhaseProceed = { kind: 'proceed' };
const PROCEED: PhaseProceed = { kind: 'proceed' };

export class PhaseGuard implements Guard {
  readonly name = 'phase';
  private tools: PhaseTools = { byCategory: {}, shell: [], dynamic: [] };
  /** decideWarning's "what is missing" of the last step, while nothing changed. */
  private readonly missingMemo: MissingMemo = {};
  /** The compiled tools `tools` was read from. */
  private toolsFrom: readonly CompiledTool[] = [];
  private calls: PhaseCall[] = [];
  private start: Fingerprint | undefined;
  private lastVerification: Fingerprint | undefined;
  /** The workspace at the last run of the project's own tests. */
  private lastProjectTests: Fingerprint | undefined;
  /** This tick's checks that ran: the workspace as each left it, by call index. */
  private checkFingerprints = new Map<number, Fingerprint>();
  private workspaceJudgement: VerificationJudgement | undefined;
  private startIsLate = false;

  constructor(private readonly host: GuardHost) {}

  private props(): PhaseGatesProps | undefined {
    return this.host.registry.ofFamily(PHASE_FAMILY)[0]?.config as PhaseGatesProps | undefined;
  }

  private phase(): PhaseSessionState {
    const phase = this.host.state().guards.phase;
    // A hand-built or foreign state without a ledger starts the phases again, not a crash.
    return phase && typeof phase.ledger === 'object' && phase.ledger !== null ? phase : fresh();
  }

  runStart(_info: RunStartInfo): void {
    // A new task after a completed run starts the phases again; a run that continues one
    // (after blocked, max-ticks, a pause) keeps what was done.
    if (this.host.state().status !== 'completed' || this.host.state().guards.phase == null) return;
    this.host.update((draft) => {
      draft.guards.phase = fresh();
    });
    this.start = undefined;
    this.startIsLate = false;
    this.lastVerification = undefined;
    this.lastProjectTests = undefined;
    this.workspaceJudgement = undefined;
  }

  /** Engaged while `<PhaseGates>` is rendered (or calls of this tick are still to be recorded). */
  engaged(): boolean {
    return this.props() !== undefined || this.calls.length > 0;
  }

  render(tree: CompiledTree): GuardContribution | undefined {
    // <PhasePrompt> needs the compiled tools, known only now: fill in its marker.
    tree.system = fillPhasePrompt(tree.system, tree.tools);
    if (this.props() === undefined) return undefined;
    // The same compiled tools as last render (the usual tick): the same categories.
    if (!sameItems(this.toolsFrom, tree.tools)) {
      this.tools = toolsOf(tree.tools);
      this.toolsFrom = [...tree.tools];
    }
    const pending = this.phase().pending;
    return pending.length > 0
      ? { ephemeral: pending.map((text) => ({ text, source: 'phase-gates' })) }
      : undefined;
  }

  /** Block mode with no tool that can change or verify can never be satisfied: say so once. */
  check(context: CompiledContext): void {
    const props = this.props();
    if (props?.mode !== 'block') return;
    const tools = toolsOf(context.tools);
    const can = (c: ToolCategory) =>
      (tools.byCategory[c]?.length ?? 0) > 0 || tools.shell.length > 0 || tools.dynamic.length > 0;
    const missing = (['read', 'patch', 'verify'] as const).filter((c) => !can(c));
    if (missing.length === 0) return;
    this.host.warnOnce(
      `phase-deadlock:${missing.join(',')}`,
      'phase-gates-unsatisfiable',
      `<PhaseGates mode="block"> needs a tool for each phase, but no rendered tool has category ${missing.map((c) => `"${c}"`).join(' or ')} (or "shell"): every attempt to finish will be refused until the run ends blocked. Give the tools a category.`,
    );
  }

  // The hooks are synchronous unless a workspace must be read: an awaited hook costs every tick
  // a promise.
  beforeModelCall(): PhaseProceed | Promise<PhaseProceed> {
    const workspace = this.props()?.workspace;
    if (workspace === undefined || this.start !== undefined) return PROCEED;
    // A session restored mid-run has no fingerprint of its real start: judge it from the calls.
    this.startIsLate = this.phase().ledger.stepsTaken > 0;
    return fingerprintWorkspace(workspace).then((start) => {
      this.start = start;
      return PROCEED;
    });
  }

  afterToolCall(_tick: GuardTick, outcome: ToolCallOutcome): void | Promise<void> {
    const props = this.props();
    if (props === undefined || !outcome.executed) return;
    const phase = this.phase();
    const result = resultOf(outcome);
    const category = categoryFor(outcome.tool, outcome.input);
    const { toolName } = outcome.call;
    let call: PhaseCall;
    if (
      category.kind === 'fixed' &&
      !category.categories.includes('patch') &&
      phase === this.host.state().guards.phase
    ) {
      // Only a call that may write a script (a patch, or a shell command) changes the ledger:
      // classified against the state's own, frozen ledger, without a draft.
      call = callToPhaseCall(
        phase.ledger,
        toolName,
        category,
        outcome.input,
        result,
        props.testCommands,
      );
    } else {
      // A draft, not a deep copy: the ledger grows with the run, a step changes a little of it.
      const draft = createDraft(phase.ledger);
      call = callToPhaseCall(draft, toolName, category, outcome.input, result, props.testCommands);
      const ledger = finishDraft(draft);
      // Most calls (no script written, no file opened) leave the ledger as it was: no new state.
      if (ledger !== phase.ledger || phase !== this.host.state().guards.phase) {
        this.host.update((draft) => {
          draft.guards.phase = { ...this.phase(), ledger };
        });
      }
    }
    this.calls.push(call);
    const index = this.calls.length - 1;
    // Every check that ran marks the workspace; whether it passed, and whose tests it ran, is
    // read from the ledger at tick end.
    const ran = call.parts.some((p) => p.category === 'verify') && verificationRan(result);
    if (props.workspace !== undefined && ran) {
      return fingerprintWorkspace(props.workspace).then((fingerprint) => {
        this.lastVerification = fingerprint;
        this.checkFingerprints.set(index, fingerprint);
      });
    }
  }

  tickEnd(guardTick: GuardTick, result: TickResult): void | Promise<void> {
    const props = this.props();
    const calls = this.calls;
    this.calls = [];
    if (props === undefined) return;
    const recorded = recordOnCopy(this.phase().ledger, calls, props);
    const tests = recorded.lastProjectTests;
    if (tests !== undefined && tests.step === recorded.stepsTaken) {
      this.lastProjectTests = this.checkFingerprints.get(tests.call) ?? this.lastProjectTests;
    }
    this.checkFingerprints = new Map();
    const touched = calls.some((c) =>
      c.parts.some((p) => p.category === 'patch' || p.category === 'verify'),
    );
    if (
      props.workspace !== undefined &&
      this.start !== undefined &&
      (touched || result.toolCalls.length === 0 || this.workspaceJudgement === undefined)
    ) {
      return judgeWorkspace(
        props.workspace,
        this.start,
        this.lastVerification,
        this.lastProjectTests,
      ).then((judgement) => {
        this.workspaceJudgement = judgement;
        this.finishTick(guardTick, recorded, props);
      });
    }
    this.finishTick(guardTick, recorded, props);
  }

  /**
   * The tick's status and warning, from the recorded ledger (and the workspace's judgement).
   * `ledger` is this tick's own shallow copy: decideWarning sets only its top-level fields.
   */
  private finishTick(guardTick: GuardTick, ledger: PhaseLedger, props: PhaseGatesProps): void {
    const judgement = this.judgement(ledger, props);
    const status = phaseStatus(ledger, props, judgement);
    const warning = decideWarning(
      ledger,
      status,
      judgement,
      namedTools(this.tools, ledger),
      props,
      taskText(guardTick),
      this.missingMemo,
    );
    const outcome = { status, ...(warning ? { warning } : {}) };
    const previous = this.host.state().guards.phase;
    const pending = outcome.warning ? [outcome.warning.text] : [];
    // Rebuilt whole each tick: frozen (the ledger's unchanged parts are already) and assigned
    // without a draft.
    this.host.assign('phase', deepFreeze({ ...status, ledger, pending }));
    if (previous === null || !sameStatus(statusOf(previous), status)) {
      this.host.emit({ type: 'phase:changed', tick: guardTick.tick, status });
    }
    if (outcome.warning) {
      this.host.emit({
        type: 'phase:warning',
        tick: guardTick.tick,
        kind: outcome.warning.kind,
        text: outcome.warning.text,
      });
    }
  }

  /**
   * Checks the host ran itself at this exit attempt (`<CommandGate>`, which runs before this
   * family): each one recorded as a step of its own, a shell call of its command, so that it
   * counts as the project's tests exactly when its command is the project's.
   */
  beforeExitAttempt(guardTick: GuardTick): void | Promise<void> {
    const props = this.props();
    if (props === undefined) return;
    const checks = this.host
      .state()
      .guards.commandGates.checks.filter((c) => c.tick === guardTick.tick && c.ran);
    if (checks.length === 0) return;
    const draft = createDraft(this.phase().ledger);
    const calls = checks.map((c) =>
      callToPhaseCall(
        draft,
        `host check "${c.gate}"`,
        { kind: 'shell', command: c.command },
        { command: c.command },
        {
          ...(c.exitCode !== null ? { exitCode: c.exitCode } : {}),
          output: c.output,
          ...(c.timedOut ? { isError: true } : {}),
        },
        props.testCommands,
      ),
    );
    recordStep(draft, calls, props);
    const ledger = { ...finishDraft(draft) };
    const settle = () => {
      const status = phaseStatus(ledger, props, this.judgement(ledger, props));
      const previous = this.host.state().guards.phase;
      this.host.assign(
        'phase',
        deepFreeze({ ...status, ledger, pending: previous?.pending ?? [] }),
      );
      if (previous === null || !sameStatus(statusOf(previous), status)) {
        this.host.emit({ type: 'phase:changed', tick: guardTick.tick, status });
      }
    };
    if (props.workspace === undefined) return settle();
    const workspace = props.workspace;
    return fingerprintWorkspace(workspace).then(async (fingerprint) => {
      this.lastVerification = fingerprint;
      if (ledger.lastProjectTests?.step === ledger.stepsTaken) this.lastProjectTests = fingerprint;
      if (this.start !== undefined) {
        this.workspaceJudgement = await judgeWorkspace(
          workspace,
          this.start,
          this.lastVerification,
          this.lastProjectTests,
        );
      }
      settle();
    });
  }

  exitAttempt(): ExitVerdict {
    const props = this.props();
    if (props === undefined || props.mode !== 'block') return { kind: 'allow' };
    const phase = this.phase();
    const ledger = createDraft(phase.ledger);
    const judgement = this.judgement(ledger, props);
    const status = phaseStatus(ledger, props, judgement);
    const decision = decideExitAttempt(ledger, status, judgement, this.tools, props);
    if (decision.kind === 'allow') ledger.blocks = 0;
    const next = finishDraft(ledger);
    this.host.update((draft) => {
      draft.guards.phase = { ...status, ledger: next, pending: [] };
    });
    if (decision.kind === 'allow') return { kind: 'allow' };
    if (decision.kind === 'end')
      return { kind: 'end', names: [REFUSER], reasons: decision.reasons, reason: decision.notice };
    return { kind: 'refuse', names: [REFUSER], reasons: decision.reasons, notice: decision.notice };
  }

  engagedAtMaxTicks(): string[] {
    const props = this.props();
    if (props?.mode !== 'block') return [];
    const ledger = this.phase().ledger;
    const status = phaseStatus(ledger, props, this.judgement(ledger, props));
    if (status.readiness) return [];
    const missing = (['understanding', 'change', 'verification'] as const).filter(
      (p) => !status[p],
    );
    return [`phase gates are not satisfied (missing: ${missing.join(', ')})`];
  }

  report(): RunReport {
    const phase = this.host.state().guards.phase;
    return this.props() !== undefined && phase ? { phase: statusOf(phase) } : {};
  }

  /** The phases now (for `usePhaseGates` readers outside a tick). */
  status(): PhaseStatus | null {
    const phase = this.host.state().guards.phase;
    return phase ? statusOf(phase) : null;
  }

  private judgement(ledger: PhaseLedger, props: PhaseGatesProps): VerificationJudgement {
    return props.workspace !== undefined &&
      this.workspaceJudgement !== undefined &&
      !this.startIsLate
      ? this.workspaceJudgement
      : judgeFromCalls(ledger, props);
  }
}

/**
 * `recordStep` on a shallow copy of the state's (frozen) ledger, the copy returned unfrozen.
 * Calls that only discover, search or do something else set nothing but the ledger's top-level
 * counters and flags, so the copy takes them as they are: the usual tick, where an immer draft
 * would cost several times more. Reads, changes and verifications reach into the ledger's
 * records, and go through a draft.
 */
function recordOnCopy(
  ledger: PhaseLedger,
  calls: readonly PhaseCall[],
  props: PhaseGatesProps,
): PhaseLedger {
  if (calls.every((call) => call.parts.every((part) => TOP_LEVEL_ONLY.has(part.category)))) {
    const copy = { ...ledger };
    recordStep(copy, calls, props);
    return copy;
  }
  const draft = createDraft(ledger);
  recordStep(draft, calls, props);
  return { ...finishDraft(draft) };
}
const TOP_LEVEL_ONLY: ReadonlySet<ToolCategory> = new Set(['discovery', 'search', 'other']);

function fresh(): PhaseSessionState {
  return { ...phaseStatus(createPhaseLedger()), ledger: createPhaseLedger(), pending: [] };
}

/** The status alone (what events, `RunResult.phase` and `usePhaseGates()` give). */
export function statusOf(phase: PhaseSessionState): PhaseStatus {
  const { understanding, change, verification, readiness, evidence } = phase;
  return { understanding, change, verification, readiness, evidence };
}

/** Field by field, what comparing the two as JSON would say (without building the strings). */
export function sameStatus(a: PhaseStatus, b: PhaseStatus): boolean {
  const x = a.evidence;
  const y = b.evidence;
  return (
    a.understanding === b.understanding &&
    a.change === b.change &&
    a.verification === b.verification &&
    a.readiness === b.readiness &&
    x.filesRead === y.filesRead &&
    x.searchUsed === y.searchUsed &&
    x.patchesProposed === y.patchesProposed &&
    x.verifyUsed === y.verifyUsed &&
    x.noProgressYet === y.noProgressYet &&
    x.stepsTaken === y.stepsTaken
  );
}

/** The rendered tools by what their calls can be, so messages name the agent's real tools. */
export function toolsOf(tools: readonly CompiledTool[]): PhaseTools {
  const out: PhaseTools = { byCategory: {}, shell: [], dynamic: [] };
  for (const tool of tools) {
    const category = tool.guard?.category;
    if (category === 'shell') out.shell.push(tool.name);
    else if (typeof category === 'function') out.dynamic.push(tool.name);
    else if (isToolCategory(category))
      out.byCategory[category] = [...(out.byCategory[category] ?? []), tool.name];
  }
  return out;
}

function categoryFor(tool: CompiledTool | undefined, input: unknown): CallCategory {
  const category = tool?.guard?.category;
  if (category === 'shell') {
    const shellCommand = tool?.guard?.shellCommand as ((input: unknown) => string) | undefined;
    let command: string | undefined;
    try {
      command = shellCommand ? shellCommand(input) : commandOf(input);
    } catch {
      command = undefined;
    }
    return { kind: 'shell', command };
  }
  if (typeof category === 'function') {
    let value: unknown;
    try {
      value = (category as (input: unknown) => unknown)(input);
    } catch {
      value = 'other';
    }
    const list = (Array.isArray(value) ? value : [value]).filter(isToolCategory) as ToolCategory[];
    return { kind: 'fixed', categories: list.length > 0 ? list : ['other'] };
  }
  return { kind: 'fixed', categories: [isToolCategory(category) ? category : 'other'] };
}

/** `{ exitCode, output }` (or stdout/stderr) from a tool's output, or its text. */
function resultOf(outcome: ToolCallOutcome): CallResult {
  const isError = outcome.result.isError;
  const raw = outcome.output ?? outcome.result.output;
  if (typeof raw === 'string') return { output: raw, isError };
  if (typeof raw === 'object' && raw !== null) {
    const r = raw as Record<string, unknown>;
    const code = r.exitCode ?? r.exit_code ?? r.code ?? r.status;
    const text = [r.output, r.stdout, r.stderr]
      .filter((t): t is string => typeof t === 'string')
      .join('\n');
    return { ...(typeof code === 'number' ? { exitCode: code } : {}), output: text, isError };
  }
  return { isError };
}

/** The task: the first user message's text, for the escalation's `hint`. */
function taskText(tick: GuardTick): string {
  for (const m of tick.context.messages) {
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    return m.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
  }
  return '';
}
