import { AgateError } from '../../ground/agate-error.js';
import type { JsonValue } from '../../ground/json.js';
import { SET_KNOB_TOOL } from '../../guard-seam/built-in-tool-names.js';
import { DEFAULT_MAX_BLOCKS } from '../../guard-seam/exit-refusal-text.js';
import type {
  ExitVerdict,
  Guard,
  GuardContribution,
  GuardHost,
  GuardTick,
  ToolCallVerdict,
} from '../../guard-seam/guard-family.js';
import type { CompiledTree } from '../../renderer/compile.js';
import type { CompiledContext, CompiledTool } from '../../renderer/compiled-context.js';
import { GateDeadlockError, KnobDeclarationError } from '../../runtime/runtime-errors.js';
import type { RunReport } from '../../runtime/session-options.js';
import { sameItems } from '../../runtime/tool-index.js';
import { LastOf } from '../../state/last-of.js';
import type { ChangedBy, GateStatus, SessionState } from '../../state/session-state.js';
import { SessionStateError } from '../../state/session-state-error.js';
import type { TickResult, TickToolCall } from '../../state/tick-result.js';
import { decideExit } from './decide-exit.js';
import { describeMissingTools, findMissingTools } from './gate-deadlock.js';
import { clearerOf } from './gate-descriptor.js';
import { type GateTransition, gateTransitionsAtTickEnd } from './gate-transitions.js';
import type { GateDeclaration, GateInfo, GatesState } from './gate-types.js';
import type { KnobInfo } from './knob-types.js';
import { checkGateValueFromModel, checkKnobValue, isGateStatus } from './knob-values.js';
import { createSetKnobTool, describeSetKnob, type SetKnobInput } from './set-knob-tool.js';

/** A gate that counts now: rendered, or engaged and unmounted. */
type CountedGate = GateDeclaration & { rendered: boolean };

/**
 * The gates family on the guard seam: knob and gate state for one session (the rendered
 * declarations joined with session state), every change (model, host, supervisor, runtime)
 * with its event, the `set_knob` tool, tick-end transitions and the exit attempt. The
 * decisions themselves are pure functions beside this file (`decide-exit.ts`, `gate-transitions.ts`).
 */
export class GateControl implements Guard {
  readonly name = 'gates';
  readonly reservedTools = [SET_KNOB_TOOL];
  private readonly registry: GuardHost['registry'];

  constructor(private readonly access: GuardHost) {
    this.registry = access.registry;
  }

  /** The last descriptor seen for each gate, so an engaged gate keeps blocking after unmount. */
  private readonly lastKnown = new Map<string, GateDeclaration>();
  private lastSetKnob: CompiledTool | undefined;
  /** The knobs and gates `lastSetKnob` was made for (its description is theirs). */
  private setKnobFor: { knobs: readonly KnobInfo[]; gates: readonly GateInfo[] } | undefined;
  /**
   * The last answers of gateDeclarations, gateInfos and knobInfos, kept while the objects they
   * were derived from are the same: the registry's lists (the same while no declaration
   * changed) and the state's records (the same while no gate or knob changed).
   */
  private readonly declarationsMemo = new LastOf<readonly CountedGate[]>();
  private readonly infosMemo = new LastOf<readonly GateInfo[]>();
  private readonly knobsMemo = new LastOf<readonly KnobInfo[]>();

  private get state(): SessionState {
    return this.access.state();
  }

  /**
   * The gates that count now: every rendered gate, plus every engaged gate whose component
   * unmounted. Unmounting (a phase switch, a knob the model set) must not be a way around a
   * gate: it keeps blocking until it is cleared.
   */
  private gateDeclarations(): readonly CountedGate[] {
    const rendered = this.registry.ofKind('gate');
    const gates = this.state.guards.gates.gates;
    // The same rendered declarations and gate records as the last read (a tick reads them
    // several times, and most ticks change neither): the same answer.
    return (
      this.declarationsMemo.get(rendered, gates) ??
      this.declarationsMemo.set(rendered, gates, this.countedGates(rendered, gates))
    );
  }

  private countedGates(
    rendered: readonly GateDeclaration[],
    gates: GatesState['gates'],
  ): readonly CountedGate[] {
    for (const d of rendered) this.lastKnown.set(d.name, d);
    const names = new Set(rendered.map((d) => d.name));
    const left = [...this.lastKnown.values()].filter(
      (d) => !names.has(d.name) && (gates[d.name]?.state ?? 'inactive') !== 'inactive',
    );
    return [
      ...rendered.map((d) => ({ ...d, rendered: true })),
      ...left.map((d) => ({ ...d, rendered: false })),
    ].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Host or supervisor changes a knob (validated like the model's set_knob, minus permissions). */
  setKnob(name: string, value: JsonValue, by: Exclude<ChangedBy, 'model'> = 'host'): void {
    const gate = this.gateInfos().find((g) => g.name === name);
    if (gate) {
      if (!isGateStatus(value)) {
        throw new KnobDeclarationError(
          `Invalid value ${JSON.stringify(value)} for gate "${name}": use "inactive", "active" or "deferred".`,
        );
      }
      // Clearing goes through clearGate so a supervisor-only gate cannot be cleared by the host.
      if (value === 'inactive') {
        this.clearGate(name, by === 'supervisor' ? 'supervisor' : 'host');
        return;
      }
      this.changeGate(name, value, by, `set by the ${by}`);
      return;
    }
    const knob = this.knobInfos().find((k) => k.name === name);
    if (!knob) throw new KnobDeclarationError(this.unknownKnobMessage(name));
    const checked = checkKnobValue(knob, value);
    if (!checked.ok) throw new KnobDeclarationError(checked.message);
    this.changeKnob(knob, checked.value, by);
  }

  /** Clears a gate as the host (evidence checked outside the model) or a supervisor. */
  clearGate(name: string, by: 'host' | 'supervisor' = 'host'): void {
    const gate = this.gateInfos().find((g) => g.name === name);
    if (!gate) {
      throw new KnobDeclarationError(
        `No gate named "${name}" is rendered. Rendered gates: ${
          this.gateInfos()
            .map((g) => g.name)
            .join(', ') || 'none'
        }.`,
      );
    }
    if (gate.clearableBy === 'supervisor' && by !== 'supervisor') {
      throw new SessionStateError(
        `Gate "${name}" can only be cleared by a supervisor: call session.clearGate("${name}", "supervisor").`,
      );
    }
    this.changeGate(name, 'inactive', by, `cleared by the ${by}`);
  }

  /** `set_knob` when anything can be set, and the instructions of engaged gates that unmounted. */
  /** Nothing to check or change while no gate or knob is declared (or left the tree engaged). */
  engaged(): boolean {
    return (
      this.lastKnown.size > 0 ||
      this.registry.ofKind('gate').length > 0 ||
      this.registry.ofKind('knob').length > 0 ||
      // `check` reports any name declared twice, of whatever family.
      this.registry.duplicates().length > 0
    );
  }

  render(tree: CompiledTree): GuardContribution | undefined {
    const knobs = this.knobInfos();
    const gates = this.gateInfos();
    // The context reports both lists on every render, empty or not (each its own array, as the
    // context is the caller's).
    if (knobs.length === 0 && gates.length === 0) return { reports: { knobs: [], gates: [] } };
    // Offered only when the model may set something: a knob, or a gate it may clear. Gates the
    // host or a supervisor clears are not the model's to change.
    const settable = knobs.length > 0 || gates.some((g) => g.clearableBy === 'model');
    if (settable && tree.tools.some((t) => t.name === SET_KNOB_TOOL)) {
      throw new KnobDeclarationError(
        `A <Tool> is named "${SET_KNOB_TOOL}", which Agate reserves for knobs and gates. Rename the tool.`,
      );
    }
    return {
      reports: { knobs: [...knobs], gates: [...gates] },
      tools: settable ? [this.setKnobTool(knobs, gates)] : [],
      // An active gate whose component unmounted has no element; the runtime shows it.
      ephemeral: gates
        .filter((g) => !g.rendered && g.state === 'active')
        .map((g) => ({ text: g.instructions, source: `gate:${g.name}` })),
    };
  }

  /**
   * The `set_knob` tool, made again only when its description changes (a knob's value, a gate
   * declared or dropped): every render asks for it, and the tool is the same in between.
   */
  private setKnobTool(knobs: readonly KnobInfo[], gates: readonly GateInfo[]): CompiledTool {
    // The same lists as last render (no knob or gate changed): not even described again.
    if (
      this.lastSetKnob !== undefined &&
      this.setKnobFor?.knobs === knobs &&
      this.setKnobFor.gates === gates
    ) {
      return this.lastSetKnob;
    }
    this.setKnobFor = { knobs, gates };
    const description = describeSetKnob(knobs, gates);
    if (this.lastSetKnob?.description !== description) {
      this.lastSetKnob = createSetKnobTool(knobs, gates, (input) =>
        this.applyModelKnobChange(input),
      );
    }
    return this.lastSetKnob;
  }

  check(context: CompiledContext): void {
    // Everything the check reads is what it read last time (the usual tick): every warning it
    // could give was given then, once, and nothing threw. Checked again only after a change.
    const inputs = {
      duplicates: this.registry.duplicates(),
      declared: this.registry.ofKind('gate'),
      gates: context.gates,
      tools: context.tools,
      devChecks: this.access.devChecks,
    };
    const last = this.checked;
    if (
      last !== undefined &&
      last.duplicates === inputs.duplicates &&
      last.declared === inputs.declared &&
      last.devChecks === inputs.devChecks &&
      sameItems(last.gates, inputs.gates) &&
      sameItems(last.tools, inputs.tools)
    ) {
      return;
    }
    this.checked = undefined;
    this.checkDeclarations(context);
    this.checked = { ...inputs, gates: [...inputs.gates], tools: [...inputs.tools] };
  }
  /** What the last check that threw nothing read (gate infos are kept while unchanged). */
  private checked:
    | {
        duplicates: readonly string[];
        declared: readonly GateDeclaration[];
        gates: readonly GateInfo[];
        tools: readonly CompiledTool[];
        devChecks: boolean;
      }
    | undefined;

  /**
   * `set_knob` is not offered when every gate is the host's or a supervisor's to clear; a model
   * that calls it anyway is told who clears the gate it named, instead of "unknown tool".
   */
  beforeToolCall(guardTick: GuardTick, call: TickToolCall): ToolCallVerdict {
    if (call.toolName !== SET_KNOB_TOOL) return { kind: 'allow' };
    if (guardTick.context.tools.some((t) => t.name === SET_KNOB_TOOL)) return { kind: 'allow' };
    const gates = this.gateInfos();
    if (gates.length === 0) return { kind: 'allow' };
    const named = (call.input as { name?: unknown } | undefined)?.name;
    const gate = gates.find((g) => g.name === named);
    if (gate !== undefined) {
      const checked = checkGateValueFromModel({ ...gate, state: 'active' }, 'inactive');
      if (!checked.ok) return { kind: 'refuse', message: checked.message };
    }
    return {
      kind: 'refuse',
      message: `${SET_KNOB_TOOL} is not available: every gate here is cleared by the host (from the evidence) or by a supervisor, not by you. ${gates.map((g) => `Gate "${g.name}": ${g.instructions}`).join(' ')}`,
    };
  }

  /** The model replied without tool calls: it is trying to finish. Gates may refuse. */
  exitAttempt(guardTick: GuardTick): ExitVerdict {
    const { tick } = guardTick;
    const decision = decideExit(this.gateInfos());
    if (decision.kind === 'finish') return { kind: 'allow' };

    this.access.update((draft) => {
      for (const g of decision.gates) {
        const record = draft.guards.gates.gates[g.name] ?? { state: 'active', blocks: 0 };
        record.state = 'active';
        record.blocks = g.blocks;
        if (g.wasDeferred) {
          record.changedBy = 'runtime';
          record.changedAtTick = tick;
        }
        draft.guards.gates.gates[g.name] = record;
      }
    });
    for (const g of decision.gates) {
      if (g.wasDeferred) {
        this.access.emit({
          type: 'gate:activated',
          tick,
          gate: g.name,
          from: 'deferred',
          by: 'runtime',
          reason: 'an attempt to finish un-deferred it',
        });
      }
    }
    const names = decision.gates.map((g) => g.name);
    if (decision.kind === 'end-blocked') {
      return { kind: 'end', names, reasons: decision.reasons, reason: decision.reason };
    }
    return { kind: 'refuse', names, reasons: decision.reasons, notice: decision.notice };
  }

  engagedAtMaxTicks(): string[] {
    return this.gateInfos()
      .filter((g) => g.state !== 'inactive')
      .map((g) => `gate "${g.name}" is ${g.state} (${g.description})`);
  }

  tickEnd(guardTick: GuardTick, result: TickResult): void {
    const declarations = this.gateDeclarations();
    // A throwing predicate surfaces as a GatePredicateError naming the gate and the predicate;
    // nothing is applied, so the gates stay as they were before this tick end.
    const transitions: GateTransition[] = gateTransitionsAtTickEnd(
      declarations.map((d) => ({
        name: d.name,
        state: this.gateRecord(d).state,
        // An unmounted gate can still be cleared from evidence, but it no longer activates.
        descriptor: d.rendered ? d.descriptor : { ...d.descriptor, activateWhen: undefined },
      })),
      result,
      () => ({ ticks: [...guardTick.recentTicks], timeline: this.state.timeline }),
    );
    for (const t of transitions) this.changeGate(t.gate, t.to, t.by, t.reason);
  }

  report(): RunReport {
    return {
      gates: Object.fromEntries(this.gateInfos().map((g) => [g.name, g.state])),
      knobs: Object.fromEntries(this.knobInfos().map((k) => [k.name, k.value])),
    };
  }

  applyModelKnobChange(input: SetKnobInput): string {
    // set_knob runs inside the tick being executed, which is not committed yet.
    const tick = this.state.tick + 1;
    const gate = this.gateInfos().find((g) => g.name === input.name);
    if (gate) {
      const checked = checkGateValueFromModel(gate, input.value);
      if (!checked.ok) throw new AgateError(checked.message);
      if (checked.state === gate.state) return `Gate "${gate.name}" is already ${gate.state}.`;
      this.changeGate(gate.name, checked.state, 'model', 'set_knob', tick);
      return checked.state === 'inactive'
        ? `Gate "${gate.name}" cleared.`
        : checked.state === 'deferred'
          ? `Gate "${gate.name}" deferred. It still blocks finishing: an attempt to finish makes it active again.`
          : `Gate "${gate.name}" is now active.`;
    }
    const knob = this.knobInfos().find((k) => k.name === input.name);
    if (!knob) throw new AgateError(this.unknownKnobMessage(input.name));
    const checked = checkKnobValue(knob, input.value);
    if (!checked.ok) throw new AgateError(checked.message);
    this.changeKnob(knob, checked.value, 'model', tick);
    return `Knob "${knob.name}" set to ${JSON.stringify(checked.value)}.`;
  }

  private unknownKnobMessage(name: string): string {
    const names = [...this.gateInfos().map((g) => g.name), ...this.knobInfos().map((k) => k.name)];
    return `Unknown knob "${name}". Knobs and gates you can set: ${names.join(', ') || 'none'}.`;
  }

  private changeKnob(
    knob: KnobInfo,
    value: JsonValue,
    by: ChangedBy,
    tick: number = this.state.tick,
  ): void {
    const previous = knob.value;
    this.access.update((draft) => {
      draft.guards.gates.knobs[knob.name] = value;
    });
    this.access.emit({
      type: 'knob:changed',
      tick,
      knob: knob.name,
      value,
      previous,
      by,
    });
  }

  private changeGate(
    name: string,
    to: GateStatus,
    by: ChangedBy,
    reason: string,
    tick: number = this.state.tick,
  ): void {
    const declaration = this.gateDeclarations().find((d) => d.name === name);
    const from = declaration ? this.gateRecord(declaration).state : 'inactive';
    if (from === to) return;
    this.access.update((draft) => {
      const record = draft.guards.gates.gates[name] ?? { state: from, blocks: 0 };
      record.state = to;
      record.changedBy = by;
      record.changedAtTick = tick;
      if (to === 'inactive') record.blocks = 0;
      draft.guards.gates.gates[name] = record;
    });
    const type =
      to === 'inactive' ? 'gate:cleared' : to === 'deferred' ? 'gate:deferred' : 'gate:activated';
    this.access.emit({ type, tick, gate: name, from, by, reason });
  }

  private gateRecord(declaration: GateDeclaration) {
    return (
      this.state.guards.gates.gates[declaration.name] ?? {
        state: declaration.descriptor.initial ?? 'inactive',
        blocks: 0,
      }
    );
  }

  /** The gates that count now, joined with their records. Shared between reads: frozen. */
  gateInfos(): readonly GateInfo[] {
    const declarations = this.gateDeclarations();
    const gates = this.state.guards.gates.gates;
    const kept = this.infosMemo.get(declarations, gates);
    if (kept !== undefined) return kept;
    return this.infosMemo.set(
      declarations,
      gates,
      declarations.map((d) => {
        const record = this.gateRecord(d);
        return Object.freeze({
          name: d.name,
          rendered: d.rendered,
          state: record.state,
          description: d.descriptor.description,
          instructions: d.descriptor.instructions,
          clearableBy: clearerOf(d.descriptor),
          blocks: record.blocks,
          maxBlocks: d.descriptor.maxBlocks ?? DEFAULT_MAX_BLOCKS,
          ...(record.changedBy !== undefined ? { changedBy: record.changedBy } : {}),
        });
      }),
    );
  }

  /** The rendered knobs with their values. Shared between reads: frozen. */
  knobInfos(): readonly KnobInfo[] {
    const declared = this.registry.ofKind('knob');
    const knobs = this.state.guards.gates.knobs;
    const kept = this.knobsMemo.get(declared, knobs);
    if (kept !== undefined) return kept;
    return this.knobsMemo.set(
      declared,
      knobs,
      declared.map((d) =>
        Object.freeze({
          name: d.name,
          description: d.options.description,
          value: knobs[d.name] ?? d.options.initial,
          ...(d.options.options !== undefined ? { options: d.options.options } : {}),
          ...(d.options.schema !== undefined ? { schema: d.options.schema } : {}),
        }),
      ),
    );
  }

  /** Reports declarations that can never work, instead of letting the run loop on them. */
  private checkDeclarations(context: CompiledContext): void {
    for (const name of this.registry.duplicates()) {
      this.access.warnOnce(
        `duplicate:${name}`,
        'duplicate-declaration',
        `"${name}" is declared by more than one mounted component; the first one mounted is used.`,
      );
    }
    const toolNames = new Set(context.tools.map((t) => t.name));
    const gates = this.registry.ofKind('gate');
    for (const missing of findMissingTools(gates, toolNames)) {
      const message = describeMissingTools(missing);
      const engaged = context.gates.find((g) => g.name === missing.gate)?.state !== 'inactive';
      this.access.warnOnce(
        `deadlock:${missing.gate}:${missing.tools.join(',')}`,
        'gate-deadlock',
        message,
      );
      if (engaged && this.access.devChecks) {
        throw new GateDeadlockError(message);
      }
    }
    for (const g of context.gates) {
      const d = gates.find((x) => x.name === g.name);
      if (g.clearableBy === 'host' && d?.descriptor.clearWhen === undefined) {
        this.access.warnOnce(
          `host-no-clear:${g.name}`,
          'gate-host-clear',
          `Gate "${g.name}" is clearableBy "host" but has no clearWhen: only session.clearGate("${g.name}") can clear it.`,
        );
      }
    }
    // An engaged gate whose component left the tree still blocks; say so, since its
    // instructions now reach the model only through the runtime.
    for (const g of context.gates) {
      if (!g.rendered) {
        this.access.warnOnce(
          `unmounted:${g.name}`,
          'gate-unmounted',
          `Gate "${g.name}" is ${g.state} but no longer rendered. It still blocks finishing until it is cleared (set_knob, clearWhen, or session.clearGate("${g.name}")); the runtime shows its instructions while it is active.`,
        );
      }
    }
  }
}
