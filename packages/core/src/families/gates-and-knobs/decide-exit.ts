import { SET_KNOB_TOOL } from '../../guard-seam/built-in-tool-names.js';
import { refusalCount } from '../../guard-seam/exit-refusal-text.js';
import type { GateInfo } from './gate-types.js';

/**
 * Where exit gets blocked. Called when the model replies without tool calls (an attempt to
 * finish). Pure: the decision depends only on the rendered gates' state, so no component,
 * hook or callback can turn a refusal into a finish.
 */
export type ExitDecision =
  | { kind: 'finish' }
  | {
      kind: 'refuse';
      /** Every engaged gate, now active (deferred ones are un-deferred), with its new block count. */
      gates: Array<{ name: string; wasDeferred: boolean; blocks: number }>;
      /** Shown to the model as ephemeral content on the next tick. */
      notice: string;
      reasons: string[];
    }
  | {
      kind: 'end-blocked';
      gates: Array<{ name: string; wasDeferred: boolean; blocks: number }>;
      reason: string;
      reasons: string[];
    };

export function decideExit(gates: readonly GateInfo[]): ExitDecision {
  // Sorted by name: the decision and its text never depend on render or registration order.
  const engaged = [...gates]
    .filter((g) => g.state !== 'inactive')
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (engaged.length === 0) return { kind: 'finish' };

  const updated = engaged.map((g) => ({
    name: g.name,
    wasDeferred: g.state === 'deferred',
    blocks: g.blocks + 1,
  }));
  const reasons = engaged.map((g) => refusalReason(g));

  // A supervisor gate cannot be satisfied by more turns: stop and wait for a person.
  const supervisor = engaged.find((g) => g.clearableBy === 'supervisor');
  if (supervisor) {
    return {
      kind: 'end-blocked',
      gates: updated,
      reasons,
      reason: `Waiting for a supervisor: gate "${supervisor.name}" (${supervisor.description}) must be cleared by a supervisor (session.clearGate("${supervisor.name}", "supervisor")) before the agent can finish.`,
    };
  }
  const exhausted = engaged.find((g) => g.blocks + 1 > g.maxBlocks);
  if (exhausted) {
    return {
      kind: 'end-blocked',
      gates: updated,
      reasons,
      reason: `Gate "${exhausted.name}" refused ${exhausted.blocks + 1} attempt${exhausted.blocks === 0 ? '' : 's'} to finish (maxBlocks ${exhausted.maxBlocks}) and is still ${exhausted.state}: ${exhausted.description}. What is missing: ${exhausted.instructions} What would satisfy it: ${satisfier(exhausted)}`,
    };
  }
  // Refusals left before the run ends blocked: the tightest gate decides.
  const left = Math.min(...engaged.map((g) => g.maxBlocks - (g.blocks + 1)));
  const notice = [
    `EXIT REFUSED: you tried to finish, but ${engaged.length === 1 ? 'a gate is' : `${engaged.length} gates are`} still engaged.`,
    ...engaged.map((g) => `- ${refusalReason(g)}`),
    left === 0
      ? 'The next attempt to finish without satisfying it ends the run as blocked (not completed).'
      : `${left} more attempt${left === 1 ? '' : 's'} to finish without satisfying it will be refused; the one after that ends the run as blocked (not completed).`,
  ].join('\n');
  return { kind: 'refuse', gates: updated, notice, reasons };
}

function refusalReason(gate: GateInfo): string {
  const state = gate.state === 'deferred' ? 'was deferred, now active again' : 'is active';
  const count =
    gate.clearableBy === 'supervisor' ? '' : refusalCount(gate.blocks + 1, gate.maxBlocks);
  return `Gate "${gate.name}" ${state}${count}: ${gate.description}. What is missing: ${gate.instructions} What would satisfy it: ${satisfier(gate)}`;
}

function satisfier(gate: GateInfo): string {
  switch (gate.clearableBy) {
    case 'model':
      return `do the work above, then call ${SET_KNOB_TOOL} with {"name":"${gate.name}","value":"inactive"}.`;
    case 'host':
      return 'do the work above; the host clears this gate itself when it sees the evidence (set_knob cannot clear it).';
    case 'supervisor':
      return 'a supervisor must review the work and clear this gate (set_knob cannot clear it).';
  }
}
