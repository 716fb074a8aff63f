import { KnobDeclarationError } from '../../runtime/runtime-errors.js';
import type { GateClearer, GateDescriptor } from './gate-types.js';
import { isGateStatus } from './knob-values.js';

/**
 * Creates a gate descriptor: what the gate guards, what the model must do, and when it
 * engages. Validated here so a typo fails where it was written, not in a run.
 */
export function gate(descriptor: GateDescriptor): Readonly<GateDescriptor> {
  validateGateDescriptor(descriptor, 'gate()');
  return Object.freeze({ ...descriptor });
}

/**
 * Throws a KnobDeclarationError naming the first invalid field. `useGate` and `<Gate>` call it
 * too, so a descriptor written inline (not through `gate()`) is held to the same rules.
 */
export function validateGateDescriptor(descriptor: GateDescriptor, where: string): void {
  if (typeof descriptor !== 'object' || descriptor === null) {
    throw new KnobDeclarationError(
      `${where} needs a descriptor object, got ${String(descriptor)}.`,
    );
  }
  if (typeof descriptor.description !== 'string' || descriptor.description.trim() === '') {
    throw new KnobDeclarationError(`${where} needs a non-empty \`description\`.`);
  }
  if (typeof descriptor.instructions !== 'string' || descriptor.instructions.trim() === '') {
    throw new KnobDeclarationError(
      `${where} needs non-empty \`instructions\`: refusals quote them so the model knows what is missing.`,
    );
  }
  const { activateWhen, clearWhen, maxBlocks, clearableBy, initial, requiresTools } = descriptor;
  for (const [field, value] of [
    ['activateWhen', activateWhen],
    ['clearWhen', clearWhen],
  ] as const) {
    if (value !== undefined && typeof value !== 'function') {
      throw new KnobDeclarationError(
        `${where} ${field} must be a function of the finished tick, got ${typeof value}.`,
      );
    }
  }
  if (maxBlocks !== undefined && (!Number.isInteger(maxBlocks) || maxBlocks < 0)) {
    throw new KnobDeclarationError(
      `${where} maxBlocks must be a whole number >= 0, got ${String(maxBlocks)}.`,
    );
  }
  if (clearableBy !== undefined && !['model', 'host', 'supervisor'].includes(clearableBy)) {
    throw new KnobDeclarationError(
      `${where} clearableBy must be "model", "host" or "supervisor", got ${JSON.stringify(clearableBy)}.`,
    );
  }
  if (initial !== undefined && !isGateStatus(initial)) {
    throw new KnobDeclarationError(
      `${where} initial must be "inactive", "active" or "deferred", got ${JSON.stringify(initial)}.`,
    );
  }
  if (
    requiresTools !== undefined &&
    (!Array.isArray(requiresTools) ||
      requiresTools.some((t) => typeof t !== 'string' || t.trim() === ''))
  ) {
    throw new KnobDeclarationError(
      `${where} requiresTools must be an array of tool names, got ${JSON.stringify(requiresTools)}.`,
    );
  }
}

/**
 * Who may clear a gate: `clearableBy` when given; otherwise the host when the gate has a
 * `clearWhen` (its evidence decides, so `set_knob` cannot clear it), else the model.
 */
export function clearerOf(
  descriptor: Pick<GateDescriptor, 'clearableBy' | 'clearWhen'>,
): GateClearer {
  return descriptor.clearableBy ?? (descriptor.clearWhen !== undefined ? 'host' : 'model');
}
