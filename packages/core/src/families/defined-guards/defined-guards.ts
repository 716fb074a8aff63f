import { isThenable, type MaybePromise } from '../../ground/thenable.js';
import { MAX_GUARD_REFUSAL_CHARS, plainText } from '../../guard-seam/exit-refusal-text.js';
import type {
  BeforeModelVerdict,
  ExitVerdict,
  Guard,
  GuardContribution,
  GuardHost,
  GuardTick,
  ToolCallOutcome,
  ToolCallReplacement,
  ToolCallVerdict,
} from '../../guard-seam/guard-family.js';
import type { CompiledTree } from '../../renderer/compile.js';
import type { AgateEvent, GuardEvent } from '../../runtime/events.js';
import type { TickResult, TickToolResult } from '../../state/tick-result.js';
import { GuardDefinitionError, GuardHookError } from './defined-guard-errors.js';
import type {
  GuardContext,
  GuardTickEndContext,
  GuardToolCall,
  GuardToolResult,
} from './guard-definition.js';
import { DEFINED_FAMILY, type GuardMount } from './guard-mount.js';
import { checkGuardState, guardStateOf, jsonProblem, markValidated } from './guard-state.js';

const PROCEED: BeforeModelVerdict = { kind: 'proceed' };
const ALLOW: ToolCallVerdict = { kind: 'allow' };
const NONE: readonly GuardMount[] = [];
const END_STATUSES = new Set(['stopped', 'paused']);

type Hook =
  | 'beforeModelCall'
  | 'beforeToolCall'
  | 'afterToolCall'
  | 'tickEnd'
  | 'exitAttempt'
  | 'emit';

/**
 * The guards made with `defineGuard`, on the guard seam: the runtime asks this family after the
 * built-in ones, and it asks each mounted guard in mount order. A guard that is not mounted is
 * not asked at all; with none mounted every hook returns at its first line.
 */
export class DefinedGuards implements Guard {
  readonly name = 'guards';
  /** The last refusal reason of each guard whose exit refusals are counting (for maxTicks). */
  private readonly refusing = new Map<string, string>();

  constructor(private readonly host: GuardHost) {}

  /** The registry version at which no guard was mounted: until it changes, every hook returns at once. */
  private idleAt = -1;

  private mounted(): readonly GuardMount[] {
    const { registry } = this.host;
    if (registry.version === this.idleAt) return NONE;
    const declared = registry.ofFamily(DEFINED_FAMILY);
    if (declared.length === 0) {
      this.idleAt = registry.version;
      return NONE;
    }
    // Read each time while any is mounted: a mount's props are this render's.
    return declared.map((d) => d.config as GuardMount);
  }

  engaged(): boolean {
    return this.mounted().length > 0;
  }

  render(_tree: CompiledTree): GuardContribution | undefined {
    if (this.mounted().length === 0) return undefined;
    for (const name of this.host.registry.duplicates()) {
      if (!name.startsWith('guard:')) continue;
      const guard = name.slice('guard:'.length);
      throw new GuardDefinitionError(
        `Guard "${guard}" is mounted more than once (or two guards share the name "${guard}"). A guard's state lives at state.guards["${guard}"], so each name is mounted once: render the component once, or give the other guard its own name.`,
      );
    }
    return undefined;
  }

  beforeModelCall(tick: GuardTick): MaybePromise<BeforeModelVerdict> {
    const mounts = this.mounted();
    if (mounts.length === 0) return PROCEED;
    return this.firstEnd(mounts, 0, 'beforeModelCall', (m) => this.context(m, tick.tick));
  }

  beforeToolCall(tick: GuardTick, call: GuardToolCallInput): MaybePromise<ToolCallVerdict> {
    const mounts = this.mounted();
    if (mounts.length === 0) return ALLOW;
    const seen: GuardToolCall = { id: call.toolCallId, toolName: call.toolName, input: call.input };
    return this.firstRefusal(mounts, 0, (m) => ({ ...this.context(m, tick.tick), call: seen }));
  }

  afterToolCall(
    tick: GuardTick,
    outcome: ToolCallOutcome,
  ): MaybePromise<ToolCallReplacement | undefined> {
    const mounts = this.mounted();
    if (mounts.length === 0) return undefined;
    const { call } = outcome;
    const seen: GuardToolCall = { id: call.toolCallId, toolName: call.toolName, input: call.input };
    return this.replaceFrom(mounts, 0, tick.tick, seen, resultOf(outcome), undefined);
  }

  tickEnd(tick: GuardTick, result: TickResult): MaybePromise<BeforeModelVerdict> {
    const mounts = this.mounted();
    if (mounts.length === 0) return PROCEED;
    const toolCalls = result.toolCalls.map((c) => ({
      id: c.toolCallId,
      toolName: c.toolName,
      input: c.input,
    }));
    const toolResults = result.toolResults.map(tickResultOf);
    const contextOf = (m: GuardMount): GuardTickEndContext<unknown, unknown> => ({
      ...this.context(m, tick.tick),
      toolCalls,
      toolResults,
      text: result.text,
      tickUsage: result.usage,
    });
    return this.everyEnd(mounts, 0, contextOf, PROCEED);
  }

  exitAttempt(tick: GuardTick): ExitVerdict {
    const mounts = this.mounted();
    if (mounts.length === 0) return { kind: 'allow' };
    const names: string[] = [];
    const reasons: string[] = [];
    const notices: string[] = [];
    let end: string | undefined;
    for (const mount of mounts) {
      const { exitAttempt, name } = mount.definition;
      if (exitAttempt === undefined) continue;
      const answer = invoke(name, 'exitAttempt', () => exitAttempt(this.context(mount, tick.tick)));
      const refusal = refusalOf(name, 'exitAttempt', answer);
      const count = this.refusals(name);
      if (refusal === undefined) {
        if (count > 0) this.setRefusals(name, 0);
        this.refusing.delete(name);
        continue;
      }
      const next = count + 1;
      this.setRefusals(name, next);
      this.refusing.set(name, refusal);
      names.push(name);
      reasons.push(refusal);
      if (next > mount.maxRefusals) {
        end ??= `Guard "${name}" refused ${next} attempts to finish (maxRefusals ${mount.maxRefusals}): ${refusal}`;
      } else {
        notices.push(
          `EXIT REFUSED: ${refusal} (guard "${name}", refusal ${next} of ${mount.maxRefusals})`,
        );
      }
    }
    if (names.length === 0) return { kind: 'allow' };
    if (end !== undefined) return { kind: 'end', names, reasons, reason: end };
    return { kind: 'refuse', names, reasons, notice: notices.join('\n\n') };
  }

  engagedAtMaxTicks(): string[] {
    const engaged: string[] = [];
    for (const mount of this.mounted()) {
      const { name } = mount.definition;
      if (this.refusals(name) === 0) continue;
      const reason = this.refusing.get(name);
      engaged.push(
        `guard "${name}" refuses to finish${reason === undefined ? '' : ` (${reason})`}`,
      );
    }
    return engaged;
  }

  // ---- hook contexts and answers -----------------------------------------------------------

  private context(mount: GuardMount, tick: number): GuardContext<unknown, unknown> {
    const { host } = this;
    const { name, initialState, stateSchema } = mount.definition;
    const model = host.options.model;
    const context: GuardContext<unknown, unknown> = {
      name,
      props: mount.props,
      tick,
      sessionId: host.sessionId,
      modelId: typeof model === 'string' ? model : model.modelId,
      get state() {
        return guardStateOf(host.state(), name, initialState);
      },
      get usage() {
        return host.state().usage;
      },
      get timeline() {
        return host.state().timeline;
      },
      emit(event) {
        host.emit(checkedEvent(name, event));
      },
      setState(next) {
        const value =
          typeof next === 'function' ? (next as (p: unknown) => unknown)(context.state) : next;
        checkGuardState(name, value, stateSchema, 'set');
        host.update((draft) => {
          draft.guards[name] = value;
        });
        markValidated(host.registry, name, host.state().guards[name]);
      },
    };
    return context;
  }

  private refusals(name: string): number {
    return this.host.state().guards.refusals[name] ?? 0;
  }

  private setRefusals(name: string, count: number): void {
    this.host.update((draft) => {
      if (count === 0) delete draft.guards.refusals[name];
      else draft.guards.refusals[name] = count;
    });
  }

  private firstEnd(
    mounts: readonly GuardMount[],
    from: number,
    hook: 'beforeModelCall',
    contextOf: (m: GuardMount) => GuardContext<unknown, unknown>,
  ): MaybePromise<BeforeModelVerdict> {
    for (let i = from; i < mounts.length; i++) {
      const mount = mounts[i]!;
      const fn = mount.definition[hook];
      if (fn === undefined) continue;
      const { name } = mount.definition;
      const answer = invoke(name, hook, () => fn(contextOf(mount)));
      if (isThenable(answer)) {
        return Promise.resolve(answer).then((settled) => {
          const verdict = endOf(name, hook, settled);
          return verdict.kind === 'end' ? verdict : this.firstEnd(mounts, i + 1, hook, contextOf);
        });
      }
      const verdict = endOf(name, hook, answer);
      if (verdict.kind === 'end') return verdict;
    }
    return PROCEED;
  }

  private everyEnd(
    mounts: readonly GuardMount[],
    from: number,
    contextOf: (m: GuardMount) => GuardTickEndContext<unknown, unknown>,
    endSoFar: BeforeModelVerdict,
  ): MaybePromise<BeforeModelVerdict> {
    let end = endSoFar;
    for (let i = from; i < mounts.length; i++) {
      const mount = mounts[i]!;
      const fn = mount.definition.tickEnd;
      if (fn === undefined) continue;
      const { name } = mount.definition;
      const answer = invoke(name, 'tickEnd', () => fn(contextOf(mount)));
      if (isThenable(answer)) {
        return Promise.resolve(answer).then((settled) => {
          const verdict = endOf(name, 'tickEnd', settled);
          return this.everyEnd(mounts, i + 1, contextOf, end.kind === 'end' ? end : verdict);
        });
      }
      const verdict = endOf(name, 'tickEnd', answer);
      if (end.kind === 'proceed') end = verdict;
    }
    return end;
  }

  private firstRefusal(
    mounts: readonly GuardMount[],
    from: number,
    contextOf: (m: GuardMount) => GuardContext<unknown, unknown> & { call: GuardToolCall },
  ): MaybePromise<ToolCallVerdict> {
    for (let i = from; i < mounts.length; i++) {
      const mount = mounts[i]!;
      const fn = mount.definition.beforeToolCall;
      if (fn === undefined) continue;
      const { name } = mount.definition;
      const answer = invoke(name, 'beforeToolCall', () => fn(contextOf(mount)));
      if (isThenable(answer)) {
        return Promise.resolve(answer).then((settled) => {
          const refusal = refusalOf(name, 'beforeToolCall', settled);
          return refusal === undefined
            ? this.firstRefusal(mounts, i + 1, contextOf)
            : { kind: 'refuse', message: refusal, by: name };
        });
      }
      const refusal = refusalOf(name, 'beforeToolCall', answer);
      if (refusal !== undefined) return { kind: 'refuse', message: refusal, by: name };
    }
    return ALLOW;
  }

  /** Each guard sees the result as the guards before it left it. */
  private replaceFrom(
    mounts: readonly GuardMount[],
    from: number,
    tick: number,
    call: GuardToolCall,
    result: GuardToolResult,
    replaced: ToolCallReplacement | undefined,
  ): MaybePromise<ToolCallReplacement | undefined> {
    let current = result;
    let replacement = replaced;
    for (let i = from; i < mounts.length; i++) {
      const mount = mounts[i]!;
      const fn = mount.definition.afterToolCall;
      if (fn === undefined) continue;
      const { name } = mount.definition;
      const seen = current;
      const answer = invoke(name, 'afterToolCall', () =>
        fn({ ...this.context(mount, tick), call, result: seen }),
      );
      if (isThenable(answer)) {
        return Promise.resolve(answer).then((settled) => {
          const output = replacementOf(name, settled);
          if (output === undefined)
            return this.replaceFrom(mounts, i + 1, tick, call, seen, replacement);
          return this.replaceFrom(
            mounts,
            i + 1,
            tick,
            call,
            { ...seen, output: output.output },
            output,
          );
        });
      }
      const output = replacementOf(name, answer);
      if (output !== undefined) {
        replacement = output;
        current = { ...current, output: output.output };
      }
    }
    return replacement;
  }
}

/** The tick loop's own event types: a guard cannot pretend to be the runtime. */
const RUNTIME_EVENTS = new Set([
  'run:start',
  'run:end',
  'tick:start',
  'tick:end',
  'model:request',
  'model:delta',
  'model:response',
  'tool:call',
  'tool:result',
  'tool:refused',
  'exit:attempt',
  'exit:blocked',
  'timeline:trimmed',
  'context:pruned',
  'warning',
]);

function checkedEvent(guard: string, event: GuardEvent): AgateEvent {
  const type = (event as { type?: unknown } | null)?.type;
  if (typeof type !== 'string' || type === '' || RUNTIME_EVENTS.has(type)) {
    throw new GuardHookError(
      guard,
      'emit',
      new Error(
        `an event needs a type of its own, declared in GuardEventMap (such as "${guard}:spent"); got ${JSON.stringify(type)}`,
      ),
    );
  }
  return event;
}

type GuardToolCallInput = { toolCallId: string; toolName: string; input: unknown };

function resultOf(outcome: ToolCallOutcome): GuardToolResult {
  return {
    output: outcome.result.output,
    isError: outcome.result.isError,
    executed: outcome.executed,
    ...(outcome.refusedBy !== undefined ? { refusedBy: outcome.refusedBy } : {}),
  };
}

function tickResultOf(result: TickToolResult): GuardToolResult {
  return {
    output: result.output,
    isError: result.isError,
    executed: result.refusedBy === undefined,
    ...(result.refusedBy !== undefined ? { refusedBy: result.refusedBy } : {}),
  };
}

/** Runs a hook; what it throws (or rejects with) becomes a `GuardHookError` naming the guard. */
function invoke<T>(guard: string, hook: Hook, run: () => T): T {
  let answer: T;
  try {
    answer = run();
  } catch (error) {
    throw asHookError(guard, hook, error);
  }
  if (isThenable(answer)) {
    return Promise.resolve(answer).catch((error: unknown) => {
      throw asHookError(guard, hook, error);
    }) as T;
  }
  return answer;
}

function asHookError(guard: string, hook: Hook, error: unknown): Error {
  // setState's own errors already name the guard and the path.
  if (
    GuardHookError.isInstance(error) ||
    (error instanceof Error && error.name === 'GuardStateError')
  ) {
    return error;
  }
  return new GuardHookError(guard, hook, error);
}

function wrongAnswer(guard: string, hook: Hook, answer: unknown, expected: string): GuardHookError {
  let shown: string;
  try {
    shown = JSON.stringify(answer) ?? String(answer);
  } catch {
    shown = String(answer);
  }
  return new GuardHookError(
    guard,
    hook,
    new Error(`it answered ${shown}; ${hook} answers undefined (go on) or ${expected}`),
  );
}

function endOf(guard: string, hook: Hook, answer: unknown): BeforeModelVerdict {
  if (answer === undefined || answer === null) return PROCEED;
  const end = (answer as { end?: { status?: unknown; reason?: unknown } }).end;
  if (
    typeof answer !== 'object' ||
    typeof end !== 'object' ||
    end === null ||
    !END_STATUSES.has(end.status as string) ||
    typeof end.reason !== 'string'
  ) {
    throw wrongAnswer(
      guard,
      hook,
      answer,
      "{ end: { status: 'stopped' | 'paused', reason: string } }",
    );
  }
  return { kind: 'end', status: end.status as 'stopped' | 'paused', reason: end.reason };
}

function refusalOf(guard: string, hook: Hook, answer: unknown): string | undefined {
  if (answer === undefined || answer === null) return undefined;
  const refuse = (answer as { refuse?: unknown }).refuse;
  if (typeof answer !== 'object' || typeof refuse !== 'string' || refuse.trim() === '') {
    throw wrongAnswer(guard, hook, answer, '{ refuse: string } (a reason the model reads)');
  }
  // Bounded and without control characters: it is shown to the model, in events and the studio.
  return plainText(refuse, MAX_GUARD_REFUSAL_CHARS);
}

function replacementOf(guard: string, answer: unknown): ToolCallReplacement | undefined {
  if (answer === undefined || answer === null) return undefined;
  if (typeof answer !== 'object' || !Object.hasOwn(answer, 'result')) {
    throw wrongAnswer(guard, 'afterToolCall', answer, '{ result: value } (JSON the model sees)');
  }
  const value = (answer as { result: unknown }).result;
  const problem = jsonProblem(value);
  if (problem !== undefined) {
    throw new GuardHookError(
      guard,
      'afterToolCall',
      new Error(
        `its result ${problem.path.length > 0 ? `at ${problem.path.join('.')} ` : ''}${problem.problem}`,
      ),
    );
  }
  return { output: value as ToolCallReplacement['output'] };
}
