import { z } from 'zod';
import type { JsonValue } from '../../ground/json.js';
import { KnobDeclarationError } from '../../runtime/runtime-errors.js';
import type { GateStatus } from '../../state/session-state.js';
import type { GateInfo } from './gate-types.js';
import type { KnobInfo, KnobOptions } from './knob-types.js';

export const GATE_VALUES: readonly GateStatus[] = ['inactive', 'active', 'deferred'];

export function isGateStatus(value: unknown): value is GateStatus {
  return typeof value === 'string' && GATE_VALUES.includes(value as GateStatus);
}

export type ValueCheck = { ok: true; value: JsonValue } | { ok: false; message: string };

/** Checks a requested knob value against the knob's options or schema. */
export function checkKnobValue(knob: KnobInfo, value: unknown): ValueCheck {
  if (knob.options !== undefined) {
    if (knob.options.some((option) => option === value))
      return { ok: true, value: value as JsonValue };
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
  if (!isGateStatus(value)) {
    return {
      ok: false,
      message: `Invalid value ${JSON.stringify(value)} for gate "${gate.name}". Allowed values: "inactive" (clear it), "deferred" (acknowledge it and keep working; it still blocks finishing), "active".`,
    };
  }
  const state = value;
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

/** Knob and gate names share one namespace; the model types them into set_knob. */
const NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,63}$/;

export function validateKnobName(name: unknown, where: string): void {
  if (typeof name !== 'string' || !NAME_PATTERN.test(name)) {
    throw new KnobDeclarationError(
      `${where} name ${JSON.stringify(name)} is not usable: the model types it into set_knob, so use 1-64 letters, digits, "_", "-", "." or ":" (for example "verification").`,
    );
  }
}

/**
 * A knob the model could never set, or one whose starting value breaks its own rules, fails
 * at render with the knob's name instead of surfacing as a confusing set_knob error later.
 */
export function validateKnobOptions(name: string, options: KnobOptions, where: string): void {
  validateKnobName(name, where);
  if (typeof options !== 'object' || options === null) {
    throw new KnobDeclarationError(`${where} "${name}" needs an options object.`);
  }
  if (typeof options.description !== 'string' || options.description.trim() === '') {
    throw new KnobDeclarationError(
      `${where} "${name}" needs a non-empty \`description\`: set_knob shows it to the model.`,
    );
  }
  const hasOptions = options.options !== undefined;
  const hasSchema = options.schema !== undefined;
  if (hasOptions === hasSchema) {
    throw new KnobDeclarationError(
      `${where} "${name}" needs exactly one of \`options\` (a closed list of values) or \`schema\` (a zod schema), so set_knob can check the model's value.`,
    );
  }
  if (hasOptions && (!Array.isArray(options.options) || options.options.length === 0)) {
    throw new KnobDeclarationError(`${where} "${name}" options must be a non-empty array.`);
  }
  if (options.initial === undefined) {
    throw new KnobDeclarationError(`${where} "${name}" needs an \`initial\` value.`);
  }
  const initial = checkKnobValue(
    { name, description: options.description, value: options.initial, ...pick(options) },
    options.initial,
  );
  if (!initial.ok) {
    throw new KnobDeclarationError(
      `${where} "${name}" initial value is not allowed. ${initial.message}`,
    );
  }
}

function pick(options: KnobOptions): Pick<KnobInfo, 'options' | 'schema'> {
  return {
    ...(options.options !== undefined ? { options: options.options } : {}),
    ...(options.schema !== undefined ? { schema: options.schema } : {}),
  };
}
