import type { ModelMessage } from 'ai';
import type { JsonValue } from '../../ground/json.js';
import type { ChangedBy, GateStatus } from '../../state/session-state.js';
import type { TickResult } from '../../state/tick-result.js';
import type { GateTick } from './gate-tick.js';
import type { KnobOptions } from './knob-types.js';

/** Who may clear a gate. `set_knob` refuses to clear host and supervisor gates. */
export type GateClearer = 'model' | 'host' | 'supervisor';

/** What `clearWhen` sees besides the tick just finished: recent ticks (oldest first) and the timeline. */
export interface GateHistory {
  /** Recent finished ticks, oldest first. */
  ticks: readonly TickResult[];
  /** The conversation so far. */
  timeline: readonly ModelMessage[];
}

/**
 * What a gate is (`useGate`, `<Gate>`): what it guards, what the model must do, and when it
 * engages and clears.
 */
export interface GateDescriptor {
  /** One line: what the gate guards. Shown in `set_knob`'s description and in refusals. */
  description: string;
  /** What the model must do. Rendered as ephemeral content while the gate is active. */
  instructions: string;
  /** Fires only from `inactive`, at tick end, over the tick's calls except `set_knob` and calls a guard refused. */
  activateWhen?: (tick: GateTick) => boolean;
  /**
   * Host-verified clear: evaluated at tick end while the gate is engaged. `tick.resultsOf(tool)`
   * gives a tool's results typed by its `execute`.
   */
  clearWhen?: (tick: GateTick, history: GateHistory) => boolean;
  /**
   * Who may clear the gate. Default: `'host'` when `clearWhen` is given (the evidence decides,
   * so the model cannot talk its way past it), else `'model'`.
   */
  clearableBy?: GateClearer;
  /** Exit attempts this gate refuses before the run ends `blocked`. Default 5. */
  maxBlocks?: number;
  /** Tools the gate needs to be satisfiable; a missing one is reported instead of looping. */
  requiresTools?: readonly string[];
  /** State the gate starts in the first time it is rendered. Default `'inactive'`. */
  initial?: GateStatus;
}

/** A gate as the runtime sees it after render: descriptor plus its current state. */
export interface GateInfo {
  name: string;
  /** False for an engaged gate whose component unmounted: it still blocks until cleared. */
  rendered: boolean;
  state: GateStatus;
  description: string;
  instructions: string;
  clearableBy: GateClearer;
  blocks: number;
  maxBlocks: number;
  changedBy?: ChangedBy;
}

/** What a gate event says (`gate:activated`, ..., declared in guard-seam/built-in-family-types.ts). */
export interface GateChange {
  tick: number;
  gate: string;
  from: GateStatus;
  by: ChangedBy;
  reason?: string;
}

export interface GateRecord {
  state: GateStatus;
  /** Exit attempts this gate has refused since it was last cleared. */
  blocks: number;
  changedBy?: ChangedBy;
  changedAtTick?: number;
}

/** The gates family's slice of the state (`state.guards.gates`): knob values and gate records. */
export interface GatesState {
  knobs: Record<string, JsonValue>;
  gates: Record<string, GateRecord>;
}

/** `useKnob` registers one of these while its component is mounted. */
export interface KnobDeclaration {
  kind: 'knob';
  name: string;
  options: KnobOptions;
}

/** `<Gate>` and `useGate` register one of these while their component is mounted. */
export interface GateDeclaration {
  kind: 'gate';
  name: string;
  descriptor: GateDescriptor;
}
