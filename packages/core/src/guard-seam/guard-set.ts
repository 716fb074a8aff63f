import { isThenable, type MaybePromise } from '../ground/thenable.js';
import type { CompiledTree } from '../renderer/compile.js';
import type {
  CompiledContext,
  CompiledTool,
  ContextReports,
  EphemeralBlock,
} from '../renderer/compiled-context.js';
import type { LeftOutTool } from '../renderer/tool-origin.js';
import type { RunReport } from '../runtime/session-options.js';
import type { TickResult, TickToolCall } from '../state/tick-result.js';
import type {
  BeforeModelVerdict,
  ExitVerdict,
  Guard,
  GuardTick,
  ReleasedCall,
  RunStartInfo,
  TickEndInfo,
  ToolCallOutcome,
  ToolCallReplacement,
  ToolCallVerdict,
} from './guard-family.js';

const PROCEED: BeforeModelVerdict = { kind: 'proceed' };
const ALLOW = { kind: 'allow' } as const;
const NO_REPORTS: Partial<ContextReports> = Object.freeze({});
const NO_TOOLS_LEFT_OUT: readonly LeftOutTool[] = Object.freeze([]);

export type MergedToolVerdict =
  | { kind: 'allow' }
  | { kind: 'refuse'; message: string; by: string }
  | { kind: 'hold'; reason: string; by: string };

const NONE: ReleasedCall[] = [];

type Hook = Exclude<keyof Guard, 'name' | 'slice' | 'reservedTools' | 'finishTools'>;
type HookLists = { [K in Hook]-?: Guard[] };

/**
 * Calls every guard family at one point of the tick, in registration order, and merges the
 * answers: the first family that ends the run or refuses a call decides (later ones are not
 * asked); at an exit attempt every family is asked, so every refusal reason is shown and every
 * family counts its own bound. The hook lists are built once, so an idle family costs a
 * skipped loop iteration, not a call.
 */
export class GuardSet {
  private hooks: HookLists;
  /** Which families were engaged at the last render, one flag per guard (see `engaged`). */
  private engagedMask = -1;
  /** The families' own tool names, each with the family that keeps it. */
  private readonly reserved = new Map<string, string>();
  /** The tools whose call asks to finish (`Guard.finishTools`), of every family. */
  private readonly finishTools = new Set<string>();

  /** Every family's hooks, engaged or not: the lists `hooks` is filtered from. */
  private readonly allHooks: HookLists;

  constructor(readonly guards: readonly Guard[]) {
    this.allHooks = hookLists(guards);
    this.hooks = this.allHooks;
    for (const g of guards) {
      for (const name of g.reservedTools ?? []) this.reserved.set(name, g.name);
      for (const name of g.finishTools ?? []) this.finishTools.add(name);
    }
  }

  /**
   * Whether this call asks to finish: a `finishTools` tool that ran without error. Its result
   * waits for the exit's judgement (runtime/tick/finish-calls.ts).
   */
  asksToFinish(outcome: ToolCallOutcome): boolean {
    return (
      this.finishTools.size > 0 &&
      outcome.executed &&
      !outcome.result.isError &&
      this.finishTools.has(outcome.result.toolName)
    );
  }

  runStart(info: RunStartInfo): void {
    for (const g of this.hooks.runStart) g.runStart?.(info);
  }

  /**
   * Tools and ephemeral blocks the families add, after the tree's own. A tree tool that gives
   * way (an `<McpServer>`'s) is left out where a family keeps or adds a tool of its name:
   * `leftOut` lists those (and those the tree left out itself), for a warning each.
   */
  render(tree: CompiledTree): {
    tools: CompiledTool[];
    ephemeral: EphemeralBlock[];
    reports: Partial<ContextReports>;
    leftOut: readonly LeftOutTool[];
  } {
    let leftOut: readonly LeftOutTool[] = tree.leftOut ?? NO_TOOLS_LEFT_OUT;
    if (tree.tools.some((t) => t.givesWay !== undefined && this.reserved.has(t.name))) {
      const kept = tree.tools.filter((t) => t.givesWay === undefined || !this.reserved.has(t.name));
      leftOut = [
        ...leftOut,
        ...tree.tools.filter((t) => !kept.includes(t)).map((t) => this.takenFrom(t)),
      ];
      tree = { ...tree, tools: kept };
    }
    let tools = tree.tools;
    let ephemeral = tree.ephemeral;
    let reports: Partial<ContextReports> = NO_REPORTS;
    for (const g of this.hooks.render) {
      const added = g.render?.(tree);
      if (added === undefined) continue;
      if (added.tools?.length) {
        // A family's tool named at render (a <SubAgent>'s): a server's tool gives way to it.
        const names = new Set(added.tools.map((t) => t.name));
        if (tools.some((t) => t.givesWay !== undefined && names.has(t.name))) {
          const gone = tools.filter((t) => t.givesWay !== undefined && names.has(t.name));
          tools = tools.filter((t) => !gone.includes(t));
          leftOut = [
            ...leftOut,
            ...gone.map((t) => ({
              name: t.name,
              server: t.givesWay!,
              takenBy: `a tool of the ${g.name} family`,
            })),
          ];
        }
        tools = [...tools, ...added.tools];
      }
      if (added.ephemeral?.length) ephemeral = [...ephemeral, ...added.ephemeral];
      // Each family reports its own fields; usually one family reports at all.
      if (added.reports !== undefined) {
        reports = reports === NO_REPORTS ? added.reports : { ...reports, ...added.reports };
      }
    }
    this.updateEngaged();
    return { tools, ephemeral, reports, leftOut };
  }

  private takenFrom(tool: CompiledTool): LeftOutTool {
    return {
      name: tool.name,
      server: tool.givesWay!,
      takenBy: `the ${this.reserved.get(tool.name)} family's own tool`,
    };
  }

  /**
   * Asks the families that can say whether they are engaged; rebuilds the hook lists only when
   * the answer changed (a family mounted or unmounted), so a steady tree costs one call each.
   */
  private updateEngaged(): void {
    let mask = 0;
    for (let i = 0; i < this.guards.length; i++) {
      const g = this.guards[i]!;
      if (g.engaged === undefined || g.engaged()) mask |= 1 << i;
    }
    if (mask === this.engagedMask) return;
    this.engagedMask = mask;
    const engaged = new Set(this.guards.filter((_, i) => (mask & (1 << i)) !== 0));
    const all = this.allHooks;
    // Filtered from the lists made once: which hooks a family has does not change, and asking
    // every family for every hook again was a tenth of a session's set-up (issue 51 item 2).
    const only = (list: Guard[]) => list.filter((g) => engaged.has(g));
    this.hooks = {
      ...all,
      check: only(all.check),
      beforeModelCall: only(all.beforeModelCall),
      beforeToolCall: only(all.beforeToolCall),
      afterToolCall: only(all.afterToolCall),
      tickEnd: only(all.tickEnd),
      finishRequested: only(all.finishRequested),
      beforeExitAttempt: only(all.beforeExitAttempt),
    };
  }

  check(context: CompiledContext): void {
    for (const g of this.hooks.check) g.check?.(context);
  }

  /**
   * The first family that ends the run decides. Synchronous while every family answers
   * synchronously (the usual case): an `await` per family per tick is time the tick pays for
   * nothing.
   */
  beforeModelCall(tick: GuardTick): MaybePromise<BeforeModelVerdict> {
    const hooks = this.hooks.beforeModelCall;
    for (let i = 0; i < hooks.length; i++) {
      const verdict = hooks[i]!.beforeModelCall?.(tick);
      if (isThenable(verdict)) return this.beforeModelCallFrom(tick, i + 1, verdict);
      if (verdict?.kind === 'end') return verdict;
    }
    return PROCEED;
  }

  private async beforeModelCallFrom(
    tick: GuardTick,
    from: number,
    pending: PromiseLike<BeforeModelVerdict>,
  ): Promise<BeforeModelVerdict> {
    const first = await pending;
    if (first?.kind === 'end') return first;
    const hooks = this.hooks.beforeModelCall;
    for (let i = from; i < hooks.length; i++) {
      const verdict = await hooks[i]!.beforeModelCall?.(tick);
      if (verdict?.kind === 'end') return verdict;
    }
    return PROCEED;
  }

  /** The first family that refuses or holds the call decides; synchronous while every answer is. */
  beforeToolCall(tick: GuardTick, call: TickToolCall): MaybePromise<MergedToolVerdict> {
    const hooks = this.hooks.beforeToolCall;
    for (let i = 0; i < hooks.length; i++) {
      const g = hooks[i]!;
      const verdict = g.beforeToolCall?.(tick, call);
      if (isThenable(verdict)) return this.beforeToolCallFrom(tick, call, i, verdict);
      if (verdict !== undefined && verdict.kind !== 'allow') return merged(verdict, g.name);
    }
    return ALLOW;
  }

  private async beforeToolCallFrom(
    tick: GuardTick,
    call: TickToolCall,
    at: number,
    pending: PromiseLike<ToolCallVerdict>,
  ): Promise<MergedToolVerdict> {
    const hooks = this.hooks.beforeToolCall;
    for (let i = at; i < hooks.length; i++) {
      const g = hooks[i]!;
      const verdict = i === at ? await pending : await g.beforeToolCall?.(tick, call);
      if (verdict !== undefined && verdict.kind !== 'allow') return merged(verdict, g.name);
    }
    return ALLOW;
  }

  /** Every family's released calls, in family order. */
  releaseHeldCalls(tick: GuardTick): ReleasedCall[] {
    const hooks = this.hooks.releaseHeldCalls;
    if (hooks.length === 0) return NONE;
    return hooks.flatMap((g) => g.releaseHeldCalls?.(tick) ?? []);
  }

  /**
   * Every family sees the call; a replacement changes `outcome.result` (what the model sees)
   * for the families after it and for the timeline.
   */
  afterToolCall(tick: GuardTick, outcome: ToolCallOutcome): MaybePromise<void> {
    const hooks = this.hooks.afterToolCall;
    for (let i = 0; i < hooks.length; i++) {
      const done = hooks[i]!.afterToolCall?.(tick, outcome);
      if (isThenable(done)) return this.afterToolCallFrom(tick, outcome, i + 1, done);
      if (done) replaceResult(outcome, done);
    }
  }

  private async afterToolCallFrom(
    tick: GuardTick,
    outcome: ToolCallOutcome,
    from: number,
    // biome-ignore lint/suspicious/noConfusingVoidType: the families' afterToolCall mostly returns nothing.
    pending: PromiseLike<void | ToolCallReplacement>,
  ): Promise<void> {
    const first = await pending;
    if (first) replaceResult(outcome, first);
    const hooks = this.hooks.afterToolCall;
    for (let i = from; i < hooks.length; i++) {
      const done = await hooks[i]!.afterToolCall?.(tick, outcome);
      if (done) replaceResult(outcome, done);
    }
  }

  /** Every family updates; the first one that ends the run decides the status. */
  tickEnd(
    tick: GuardTick,
    result: TickResult,
    info: TickEndInfo,
  ): MaybePromise<BeforeModelVerdict> {
    const hooks = this.hooks.tickEnd;
    let end: BeforeModelVerdict = PROCEED;
    for (let i = 0; i < hooks.length; i++) {
      const verdict = hooks[i]!.tickEnd?.(tick, result, info);
      if (isThenable(verdict)) return this.tickEndFrom(tick, result, info, i + 1, verdict, end);
      if (end.kind === 'proceed' && verdict?.kind === 'end') end = verdict;
    }
    return end;
  }

  private async tickEndFrom(
    tick: GuardTick,
    result: TickResult,
    info: TickEndInfo,
    from: number,
    // biome-ignore lint/suspicious/noConfusingVoidType: most families' tickEnd returns nothing.
    pending: PromiseLike<void | BeforeModelVerdict>,
    endSoFar: BeforeModelVerdict,
  ): Promise<BeforeModelVerdict> {
    let end = endSoFar;
    const first = await pending;
    if (end.kind === 'proceed' && first?.kind === 'end') end = first;
    const hooks = this.hooks.tickEnd;
    for (let i = from; i < hooks.length; i++) {
      const verdict = await hooks[i]!.tickEnd?.(tick, result, info);
      if (end.kind === 'proceed' && verdict?.kind === 'end') end = verdict;
    }
    return end;
  }

  /** True when any family says this tick's calls ask to finish. */
  finishRequested(tick: GuardTick, result: TickResult): boolean {
    return this.hooks.finishRequested.some((g) => g.finishRequested?.(tick, result) === true);
  }

  /** Every engaged family, in order; awaited only when one answers with a promise. */
  beforeExitAttempt(tick: GuardTick): MaybePromise<void> {
    const hooks = this.hooks.beforeExitAttempt;
    for (let i = 0; i < hooks.length; i++) {
      const done = hooks[i]!.beforeExitAttempt?.(tick);
      if (isThenable(done)) return this.beforeExitAttemptFrom(tick, i + 1, done);
    }
  }

  private async beforeExitAttemptFrom(
    tick: GuardTick,
    from: number,
    pending: PromiseLike<void>,
  ): Promise<void> {
    await pending;
    const hooks = this.hooks.beforeExitAttempt;
    for (let i = from; i < hooks.length; i++) await hooks[i]!.beforeExitAttempt?.(tick);
  }

  exitAttempt(tick: GuardTick): ExitVerdict {
    const names: string[] = [];
    const reasons: string[] = [];
    const notices: string[] = [];
    let end: string | undefined;
    for (const g of this.hooks.exitAttempt) {
      const verdict = g.exitAttempt?.(tick);
      if (verdict === undefined || verdict.kind === 'allow') continue;
      names.push(...verdict.names);
      reasons.push(...verdict.reasons);
      if (verdict.kind === 'end') end ??= verdict.reason;
      else notices.push(verdict.notice);
    }
    if (names.length === 0 && reasons.length === 0 && end === undefined) return ALLOW;
    if (end !== undefined) return { kind: 'end', names, reasons, reason: end };
    return { kind: 'refuse', names, reasons, notice: notices.join('\n\n') };
  }

  engagedAtMaxTicks(): string[] {
    return this.hooks.engagedAtMaxTicks.flatMap((g) => g.engagedAtMaxTicks?.() ?? []);
  }

  report(): RunReport {
    return Object.assign({}, ...this.hooks.report.map((g) => g.report?.()));
  }
}

/**
 * Each hook's list of the families that have it, in registration order. The per-call hooks
 * (`check`, `beforeModelCall`, `beforeToolCall`, `afterToolCall`, `tickEnd`,
 * `finishRequested`, `beforeExitAttempt`) are later filtered to the engaged families; the
 * others are always asked.
 */
function hookLists(guards: readonly Guard[]): HookLists {
  const having = (key: Hook) => guards.filter((g) => typeof g[key] === 'function');
  return {
    engaged: [],
    runStart: having('runStart'),
    render: having('render'),
    check: having('check'),
    beforeModelCall: having('beforeModelCall'),
    beforeToolCall: having('beforeToolCall'),
    releaseHeldCalls: having('releaseHeldCalls'),
    afterToolCall: having('afterToolCall'),
    tickEnd: having('tickEnd'),
    finishRequested: having('finishRequested'),
    beforeExitAttempt: having('beforeExitAttempt'),
    exitAttempt: having('exitAttempt'),
    engagedAtMaxTicks: having('engagedAtMaxTicks'),
    report: having('report'),
  };
}

/** What the model sees becomes the replacement; the cut-off note no longer applies to it. */
function replaceResult(outcome: ToolCallOutcome, replacement: ToolCallReplacement): void {
  outcome.result = { ...outcome.result, output: replacement.output };
  delete outcome.truncated;
}

/** A refusal names who refused (a defined guard names itself); a hold, the family. */
function merged(
  verdict: Exclude<ToolCallVerdict, { kind: 'allow' }>,
  family: string,
): MergedToolVerdict {
  return verdict.kind === 'refuse'
    ? { ...verdict, by: verdict.by ?? family }
    : { ...verdict, by: family };
}
