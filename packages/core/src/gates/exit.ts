import { SET_KNOB_TOOL } from './set-knob-tool.js';
import type { GateInfo } from './types.js';

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
  const engaged = [...gates]
    .filter((g) => g.state !== 'inactive')
    .sort((a, b) => a.name.localeCompare(b.name));
  if (engaged.length === 0) return { kind: 'finish' };

  const updated = engaged.map((g) => ({
    name: g.name,
    wasDeferred: g.state === 'deferred',
    blocks: g.blocks + 1,
  }));
  const reasons = engaged.map(refusalReason);

  // A supervisor gate cannot be satisfied by more turns: stop and wait for a person.
  const supervisor = engaged.find((g) => g.clearableBy === 'supervisor');
  if (supervisor) {
    return {
      kind: 'end-blocked',
      gates: updated,
      reasons,
      reason: `Waiting for a supervisor: gate "${supervisor.name}" (${supervisor.description}) must be cleared by a supervisor before the agent can finish.`,
    };
  }
  const exhausted = engaged.find((g) => g.blocks + 1 > g.maxBlocks);
  if (exhausted) {
    return {
      kind: 'end-blocked',
      gates: updated,
      reasons,
      reason: `Gate "${exhausted.name}" refused ${exhausted.blocks + 1} attempts to finish (maxBlocks ${exhausted.maxBlocks}) and is still ${exhausted.state}: ${exhausted.description}. What would satisfy it: ${satisfier(exhausted)}`,
    };
  }
  const attempt = Math.max(...updated.map((g) => g.blocks));
  const limit = Math.min(...engaged.map((g) => g.maxBlocks));
  const notice = [
    `EXIT REFUSED (attempt ${attempt} of ${limit}): you tried to finish, but ${engaged.length === 1 ? 'a gate is' : `${engaged.length} gates are`} still engaged.`,
    ...engaged.map((g) => `- ${refusalReason(g)}`),
  ].join('\n');
  return { kind: 'refuse', gates: updated, notice, reasons };
}

function refusalReason(gate: GateInfo): string {
  const state = gate.state === 'deferred' ? 'was deferred, now active again' : 'is active';
  return `Gate "${gate.name}" ${state}: ${gate.description}. What is missing: ${gate.instructions} What would satisfy it: ${satisfier(gate)}`;
}

function satisfier(gate: GateInfo): string {
  switch (gate.clearableBy) {
    case 'model':
      return `do the work above, then call ${SET_KNOB_TOOL} with {"name":"${gate.name}","value":"inactive"}.`;
    case 'host':
      return 'do the work above; the host clears this gate itself when it sees the evidence.';
    case 'supervisor':
      return 'a supervisor must review the work and clear this gate.';
  }
}
