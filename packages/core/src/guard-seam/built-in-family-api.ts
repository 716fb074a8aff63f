import type { KeyObject } from 'node:crypto';
import type { CheckpointLedgerEntry, ToolCallLedgerEntry } from '../approvals/ledger-types.js';
import { isSubAgentPath } from '../approvals/sub-agent-path.js';
import type { ContinueGateEvaluator } from '../families/continue-gate/continue-gate-evaluator.js';

/** The continue gate's evaluator type, for the session's getter (runtime/ names no family). */
export type { ContinueGateEvaluator };

import type { JsonValue } from '../ground/json.js';
import type { RunResult } from '../runtime/session-options.js';
import type { ChangedBy } from '../state/session-state.js';
import type { GuardInstances } from './built-in-families.js';
import type { GuardSet } from './guard-set.js';

/**
 * The guard families' methods on `Session` (`session.approve`, `session.setKnob`, ...).
 * `Session` declares each one and calls the implementation here, beside the families'
 * registration, so that neither the session (runtime/session.ts) nor the tick loop names a
 * family: a family with a public session method adds it here and a one-line member there.
 */
export interface FamilyApi {
  /** Host or supervisor changes a knob (validated like the model's set_knob, minus permissions). */
  setKnob(name: string, value: JsonValue, by?: Exclude<ChangedBy, 'model'>): void;
  /** Clears a gate as the host (evidence checked outside the model) or a supervisor. */
  clearGate(name: string, by?: 'host' | 'supervisor'): void;
  /** A supervisor approves a pending `<Checkpoint>`; the next `run()` goes on past it. */
  approve(
    id: string,
    decision: { by: string; note?: string; privateKey?: string | KeyObject },
  ): CheckpointLedgerEntry;
  /** A supervisor rejects a pending `<Checkpoint>`: unlocked again, the feedback shown to the model. */
  reject(
    id: string,
    decision: { by: string; feedback: string; privateKey?: string | KeyObject },
  ): CheckpointLedgerEntry;
  /**
   * A person approves a tool call held for approval (`needsApproval`; its id is the tool call's
   * id): the next `run()` executes it before calling the model. The AI SDK's tool approval
   * response with `approved: true`.
   */
  approveToolCall(
    id: string,
    decision: { by: string; reason?: string; privateKey?: string | KeyObject },
  ): ToolCallLedgerEntry;
  /** A person denies a held tool call: the next `run()` answers it with the denial (who, why). */
  denyToolCall(
    id: string,
    decision: { by: string; reason: string; privateKey?: string | KeyObject },
  ): ToolCallLedgerEntry;
  /** The ContinueGate's evaluator (history and stats for monitoring), once one is rendered. */
  readonly continueEvaluator: ContinueGateEvaluator | undefined;
}

/** The families' methods over one session's instances; `Session`'s own members call them. */
export function familyApi(families: GuardInstances): FamilyApi {
  return {
    setKnob: (name, value, by = 'host') => families.gates.setKnob(name, value, by),
    clearGate: (name, by = 'host') => families.gates.clearGate(name, by),
    // A path (`reviewer#call_3 › T-1`) names a checkpoint inside a running sub-agent.
    approve: (id, decision) =>
      isSubAgentPath(id)
        ? families.subagents.decide(
            id,
            {
              kind: 'approved',
              by: decision?.by,
              ...(decision?.note !== undefined ? { note: decision.note } : {}),
            },
            decision?.privateKey,
          )
        : families.checkpoint.approve(id, decision),
    reject: (id, decision) =>
      isSubAgentPath(id)
        ? families.subagents.decide(
            id,
            { kind: 'rejected', by: decision?.by, feedback: decision?.feedback },
            decision?.privateKey,
          )
        : families.checkpoint.reject(id, decision),
    approveToolCall: (id, decision) => families.approvals.approveToolCall(id, decision),
    denyToolCall: (id, decision) => families.approvals.denyToolCall(id, decision),
    get continueEvaluator() {
      return families.continue.evaluator;
    },
  };
}

/** What the families add to every `RunResult`. */
export type FamilyReport = Pick<
  RunResult,
  | 'gates'
  | 'knobs'
  | 'checkpoints'
  | 'checkpointLedger'
  | 'toolCallLedger'
  | 'pendingApprovals'
  | 'todos'
  | 'phase'
  | 'output'
  | 'subAgents'
>;

/** The families' report, with the fields every run result has even when nothing is rendered. */
export function familyReport(guards: GuardSet): FamilyReport {
  return {
    gates: {},
    knobs: {},
    checkpoints: {},
    checkpointLedger: [],
    toolCallLedger: [],
    pendingApprovals: [],
    ...guards.report(),
  };
}
