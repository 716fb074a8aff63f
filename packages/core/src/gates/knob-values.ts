import { z } from 'zod';
import type { JsonValue } from '../state/json.js';
import type { GateStatus } from '../state/session-state.js';
import type { KnobInfo } from './knob-types.js';
import type { GateInfo } from './types.js';

export const GATE_VALUES: readonly GateStatus[] = ['inactive', 'active', 'deferred'];

export type ValueCheck = { ok: true; value: JsonValue } | { ok: false; message: string };

/** Checks a requested knob value against the knob's options or schema. */
export function checkKnobValue(knob: KnobInfo, value: unknown): ValueCheck {
  if (knob.options !== undefined) {
    if (knob.options.some((option) => option === value)) return { ok: true, value: value as JsonValue };
    return {
      ok: false,
      message: `Invalid value ${JSON.stringify(value)} for knob "${knob.name}". Allowed values: ${knob.options
        .map((o) => JSON.stringify(o))
        .join(', ')}.`,
    };
  }
  if (knob.schema !== undefined) {
    const result = knob.schema.safeParse(value);
    if (result.success) return { ok: true, value: result.data as JsonValue };
    return {
      ok: false,
      message: `Invalid value ${JSON.stringify(value)} for knob "${knob.name}":\n${z.prettifyError(result.error)}`,
    };
  }
  return { ok: true, value: value as JsonValue };
}

export type GateCheck = { ok: true; state: GateStatus } | { ok: false; message: string };

/** What the model may do to a gate through set_knob. Deferring is always allowed. */
export function checkGateValueFromModel(gate: GateInfo, value: unknown): GateCheck {
  if (typeof value !== 'string' || !GATE_VALUES.includes(value as GateStatus)) {
    return {
      ok: false,
      message: `Invalid value ${JSON.stringify(value)} for gate "${gate.name}". Allowed values: "inactive" (clear it), "deferred" (acknowledge it and keep working; it still blocks finishing), "active".`,
    };
  }
  const state = value as GateStatus;
  if (state === 'inactive' && gate.state !== 'inactive' && gate.clearableBy !== 'model') {
    return {
      ok: false,
      message:
        gate.clearableBy === 'supervisor'
          ? `Gate "${gate.name}" can only be cleared by a supervisor, not through set_knob. It guards: ${gate.description}. Finish the work it asks for; a person will review and clear it.`
          : `Gate "${gate.name}" is cleared by the host when it verifies the work, not through set_knob. It guards: ${gate.description}. Do what it asks: ${gate.instructions}`,
    };
  }
  return { ok: true, state };
}
