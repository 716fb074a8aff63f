import { KnobDeclarationError } from '../runtime/errors.js';
import type { GateDescriptor } from './types.js';

/**
 * Creates a gate descriptor: what the gate guards, what the model must do, and when it
 * engages. Validated here so a typo fails where it was written, not in a run.
 */
export function gate(descriptor: GateDescriptor): Readonly<GateDescriptor> {
  if (typeof descriptor.description !== 'string' || descriptor.description.trim() === '') {
    throw new KnobDeclarationError('gate() needs a non-empty `description`.');
  }
  if (typeof descriptor.instructions !== 'string' || descriptor.instructions.trim() === '') {
    throw new KnobDeclarationError(
      'gate() needs non-empty `instructions`: refusals quote them so the model knows what is missing.',
    );
  }
  const { maxBlocks, clearableBy, initial } = descriptor;
  if (maxBlocks !== undefined && (!Number.isInteger(maxBlocks) || maxBlocks < 0)) {
    throw new KnobDeclarationError(`gate() maxBlocks must be a whole number >= 0, got ${maxBlocks}.`);
  }
  if (clearableBy !== undefined && !['model', 'host', 'supervisor'].includes(clearableBy)) {
    throw new KnobDeclarationError(
      `gate() clearableBy must be "model", "host" or "supervisor", got ${JSON.stringify(clearableBy)}.`,
    );
  }
  if (initial !== undefined && !['inactive', 'active', 'deferred'].includes(initial)) {
    throw new KnobDeclarationError(
      `gate() initial must be "inactive", "active" or "deferred", got ${JSON.stringify(initial)}.`,
    );
  }
  return Object.freeze({ ...descriptor });
}
