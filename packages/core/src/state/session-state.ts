import type { ModelMessage } from 'ai';
import type { CheckpointLedgerEntry, CheckpointRecord } from '../gates/checkpoint/types.js';
import type { TodosState } from '../gates/evidence/types.js';
import type { PhaseLedger } from '../gates/phase/ledger.js';
import type { PhaseStatus } from '../gates/phase/types.js';
import type { JsonValue } from './json.js';

/** The three states of a gate (a knob with exit-blocking semantics). */
export type GateStatus = 'inactive' | 'active' | 'deferred';

/** Who changed a knob or gate: the model (set_knob), the host program, a supervisor, or the runtime. */
export type ChangedBy = 'model' | 'host' | 'supervisor' | 'runtime';

export interface GateRecord {
  state: GateStatus;
  /** Exit attempts this gate has refused since it was last cleared. */
  blocks: number;
  changedBy?: ChangedBy;
  changedAtTick?: number;
}

export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

export type RunStatus =
  | 'completed'
  | 'blocked'
  | 'stopped'
  | 'paused'
  | 'awaiting-approval'
  | 'max-ticks'
  /** The reply was cut off by the output limit, again after being asked to continue. */
  | 'output-limit'
  /** The provider's content filter stopped the reply. */
  | 'content-filter'
  | 'aborted'
  | 'error';

/** Bookkeeping the ContinueGate reads; kept in state so budgets survive a resume. */
export interface ProgressState {
  /** Steps since the run started or was last resumed by a person. */
  stepNumber: number;
  lastCheckpointStep: number;
  reworkCount: number;
  /** Tokens used by each recent tick, oldest first (capped). */
  stepTokens: number[];
  /** Canonical signatures of recent tool calls, for the default rework detector (capped). */
  callSignatures: string[];
  /** Wall time spent inside ticks, summed over every run of this session. */
  elapsedMs: number;
}

/**
 * Everything a session is. Plain JSON (immer keeps it immutable) so that `session.snapshot()`
 * can hand it to another process and the run continues there.
 */
export interface SessionState {
  id: string;
  /** Completed ticks over the session's whole life (all runs). */
  tick: number;
  timeline: ModelMessage[];
  knobs: Record<string, JsonValue>;
  gates: Record<string, GateRecord>;
  usage: UsageTotals;
  toolCalls: number;
  /** Runtime notices shown as ephemeral content on the next tick only (for example exit refusals). */
  notices: string[];
  /** The last assistant text. */
  text: string;
  status: RunStatus | 'idle' | 'running';
  reason?: string;
  progress: ProgressState;
  /** `<Todos>`: the list and each item's evidence summary (never the turn's receipts). */
  todos: TodosState;
  /** `<Checkpoint>` records by id (created when a checkpoint first opens). */
  checkpoints: Record<string, CheckpointRecord>;
  /** Every submission, budget trip, file trigger, approval and rejection, oldest first. */
  checkpointLedger: CheckpointLedgerEntry[];
  /** `<PhaseGates>`: the phases, what they were judged from, and warnings for the next request. */
  phase: PhaseSessionState | null;
  /** Each `defineGuard` guard's own state, by guard name (JSON; absent until its first `setState`). */
  guards: Record<string, JsonValue>;
  /** Exit attempts each `defineGuard` guard has refused in a row (absent: none). */
  guardRefusals: Record<string, number>;
}

/** The phases (as `usePhaseGates()` gives them), and what they were judged from. */
export interface PhaseSessionState extends PhaseStatus {
  ledger: PhaseLedger;
  /** Warnings shown (ephemeral) in the next request. */
  pending: string[];
}

export const STEP_TOKENS_CAP = 50;
export const CALL_SIGNATURES_CAP = 2_000;

export function createInitialState(id: string): SessionState {
  return {
    id,
    tick: 0,
    timeline: [],
    knobs: {},
    gates: {},
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    toolCalls: 0,
    notices: [],
    text: '',
    status: 'idle',
    progress: {
      stepNumber: 0,
      lastCheckpointStep: 0,
      reworkCount: 0,
      stepTokens: [],
      callSignatures: [],
      elapsedMs: 0,
    },
    todos: { items: [], blocks: 0 },
    checkpoints: {},
    checkpointLedger: [],
    phase: null,
    guards: {},
    guardRefusals: {},
  };
}
