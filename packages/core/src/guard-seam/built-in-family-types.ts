/**
 * What the built-in guard families add to the session's types, in one place: options, each
 * family's slice of `state.guards`, `RunResult` fields, events, `<Tool>` props, declarations and
 * context reports. The runtime's floors declare these interfaces empty (or with their own fields
 * only) and name no family; this file fills them by declaration merging, with each family's own
 * types. A family of your own (`guardFamilies`, `defineGuard`) declares its additions the same
 * way, beside its code (docs/guards.md#families).
 *
 * Nothing imports a value from here: runtime/session.ts imports the file for its declarations,
 * so that every program (and every `.d.ts` of `@agate/core`) with a session has these fields.
 */

import type {
  CheckpointCause,
  CheckpointLedgerEntry,
  CheckpointStatus,
  CheckpointsState,
  ToolLedgerEntry,
} from '../approvals/ledger-types.js';
import type { ToolCategoryProp } from '../checks/tool-category.js';
import type {
  CommandGateStatus,
  CommandGatesState,
} from '../families/command-gate/command-gate-types.js';
import type {
  ContinueEvaluation,
  StepContext,
} from '../families/continue-gate/continue-gate-config.js';
import type { ContinueDeclaration } from '../families/continue-gate/continue-gate-props.js';
import type { ProgressState } from '../families/continue-gate/progress.js';
import type { EvidenceSpec } from '../families/evidence/evidence-spec.js';
import type { TodoEvidence, TodoItem, TodosState } from '../families/evidence/todo-types.js';
import type {
  GateChange,
  GateDeclaration,
  GateInfo,
  GatesState,
  KnobDeclaration,
} from '../families/gates-and-knobs/gate-types.js';
import type { KnobInfo } from '../families/gates-and-knobs/knob-types.js';
import type { PhaseSessionState } from '../families/phase-gates/phase-session-state.js';
import type { PhaseStatus, PhaseWarningKind } from '../families/phase-gates/phase-types.js';
import type { SubAgentRun } from '../families/sub-agents/sub-agent-types.js';
import type {
  ApprovalsState,
  NeedsApproval,
  PendingToolApproval,
} from '../families/tool-approvals/tool-approval-types.js';
import type { JsonValue } from '../ground/json.js';
import type { ChangedBy } from '../state/session-state.js';
import type { GuardFactory } from './guard-family.js';

declare module '../runtime/session-options.js' {
  interface SessionOptions {
    /**
     * Guard families of your own, on the seam the built-in ones use (`GuardFamily`, see
     * docs/guards.md#families): each factory makes one family per session. They are asked
     * after every built-in family but approvals, in the order given.
     */
    guardFamilies?: readonly GuardFactory[];
  }

  interface GuardRunReport {
    /** Each `<Checkpoint>`'s state, in render order. */
    checkpoints: Record<string, CheckpointStatus>;
    /** Every checkpoint submission, trip, approval and rejection (see `state.guards.checkpoints.ledger`). */
    checkpointLedger: CheckpointLedgerEntry[];
    /**
     * Every held tool call's request, decision and execution (`<Tool needsApproval>`; see
     * `state.guards.approvals.ledger`). Before version 3 these were in `checkpointLedger`.
     */
    toolCallLedger: ToolLedgerEntry[];
    /** The todo list of `<Todos>` at the end of the run (`session.state.guards.todos.items`). */
    todos?: TodoItem[];
    /** `<PhaseGates>`: the phases at the end of the run (absent without phase gates). */
    phase?: PhaseStatus;
    /**
     * `<SubAgent>`: each sub-agent call's child run (this `run()`'s calls), by tool call id. A
     * child waiting for approval is here too, with its status.
     */
    subAgents?: Record<string, SubAgentRun>;
    /**
     * Tool calls waiting for a person's decision (`<Tool needsApproval>`), in call order: the run
     * ended `awaiting-approval` (or was aborted while they waited). Empty when none waits.
     */
    pendingApprovals: PendingToolApproval[];
    /** `<CommandGate>`: each gate's check as the run left it (absent without command gates). */
    commandGates?: Record<string, CommandGateStatus>;
  }
}

declare module '../state/session-state.js' {
  interface GuardStates {
    /** `useKnob` values and `<Gate>` records, by name. */
    gates: GatesState;
    /** The ContinueGate's step bookkeeping (`state.guards.continue`), kept on every tick. */
    continue: ProgressState;
    /** `<Checkpoint>`s and their ledger (`state.guards.checkpoints`). */
    checkpoints: CheckpointsState;
    /** `<Todos>`: the list and each item's evidence summary (never the turn's receipts). */
    todos: TodosState;
    /** `<PhaseGates>`: the phases, what they were judged from, and warnings for the next request. */
    phase: PhaseSessionState | null;
    /** Tool calls held for a person's approval and their ledger (`state.guards.approvals`). */
    approvals: ApprovalsState;
    /** Exit attempts each `defineGuard` guard has refused in a row, by guard name (absent: none). */
    refusals: Record<string, number>;
    /** `<CommandGate>`s' records and the checks the host ran (`state.guards.commandGates`). */
    commandGates: CommandGatesState;
  }
}

declare module '../runtime/events.js' {
  interface GuardEventMap {
    // gates and knobs
    'knob:changed': {
      tick: number;
      knob: string;
      value: JsonValue;
      previous: JsonValue | undefined;
      by: ChangedBy;
    };
    'gate:activated': GateChange;
    'gate:deferred': GateChange;
    'gate:cleared': GateChange;

    // <CommandGate>
    /** The host ran a gate's check itself at an exit attempt (`notRun`: it could not start). */
    'command-gate:ran': {
      tick: number;
      gate: string;
      command: string;
      passed: boolean;
      exitCode: number | null;
      timedOut: boolean;
      durationMs: number;
      summary?: string;
      notRun?: string;
    };

    // <ContinueGate>
    'continue:evaluated': { tick: number; evaluation: ContinueEvaluation; step: StepContext };
    'continue:throttled': { tick: number; cooldownMs: number };
    /** The ContinueGate's restore point (not a `<Checkpoint>`). */
    'checkpoint:saved': { tick: number; step: number; snapshotId: string };

    // <Checkpoint>
    'checkpoint:submitted': { tick: number; id: string; summary: string };
    'checkpoint:pending': { tick: number; id: string; cause: CheckpointCause; reason: string };
    'checkpoint:approved': { tick: number; id: string; by: string; note?: string };
    'checkpoint:rejected': { tick: number; id: string; by: string; feedback: string };

    // <Todos>
    /** `todo_write` replaced the todo list (a rejected write changes nothing and emits nothing). */
    'todos:changed': { tick: number; todos: TodoItem[] };
    /** `complete_step` signed off item `step` (1-based) against this turn's receipts. */
    'step:completed': { tick: number; step: number; content: string; evidence: TodoEvidence };

    // <PhaseGates>
    /** The phases changed (emitted at tick end). */
    'phase:changed': { tick: number; status: PhaseStatus };
    /** A warning goes into the next request. */
    'phase:warning': { tick: number; kind: PhaseWarningKind; text: string };

    // <Tool needsApproval>
    /**
     * A guard held the call: not executed and not answered this tick, because a person must
     * decide first (`needsApproval`). The run ends `awaiting-approval` at the tick's end.
     */
    'tool:held': {
      tick: number;
      toolCallId: string;
      toolName: string;
      input: unknown;
      /** The guard family that held it (`approvals`). */
      by: string;
      reason: string;
    };
    /** A person approved a held call (`session.approveToolCall`); the next run executes it. */
    'tool:approved': { tick: number; toolCallId: string; by: string; reason?: string };
    /** A person denied a held call; the next run answers it with the denial. */
    'tool:denied': { tick: number; toolCallId: string; by: string; reason: string };
  }
}

declare module '../components/tool.js' {
  interface ToolGuardProps<I, O> {
    /** Paths a call writes (relative to the workspace); lets file triggers skip a full scan. */
    writes?: (input: I) => readonly string[];
    /** What a successful call is evidence of, for `complete_step` receipts. */
    evidence?: EvidenceSpec<I, O>;
    /** What kind of work each call is, for `<PhaseGates>`. Default `'other'`. */
    category?: ToolCategoryProp<I>;
    /** With `category="shell"`: where the command is when it is not `input.command`. */
    shellCommand?: (input: I) => string;
    /**
     * A person approves each call before it runs (see docs/approvals.md): `true`, or a function
     * of the validated input. The run ends `awaiting-approval` with the call in
     * `RunResult.pendingApprovals`. For a ready AI SDK `tool`, its own `needsApproval` is used
     * when this is not given.
     */
    needsApproval?: NeedsApproval<I>;
  }
}

declare module '../runtime/declarations.js' {
  interface DeclarationKinds {
    /** `useKnob` */
    knob: KnobDeclaration;
    /** `<Gate>`, `useGate` */
    gate: GateDeclaration;
    /** `<ContinueGate>` */
    continue: ContinueDeclaration;
  }
}

declare module '../renderer/compiled-context.js' {
  interface ContextReports {
    /** The rendered knobs with their values (the gates family's report). */
    knobs: KnobInfo[];
    /** The gates that count now, rendered or engaged (the gates family's report). */
    gates: GateInfo[];
  }
}
