import { describe, expect, it } from 'vitest';
import { KnobDeclarationError } from '../../runtime/runtime-errors.js';
import { gate, validateGateDescriptor } from './gate-descriptor.js';
import type { GateDescriptor } from './gate-types.js';

const valid: GateDescriptor = {
  description: 'Verify your changes before completing',
  instructions: 'VERIFICATION PENDING: run the checks, then clear this gate.',
  activateWhen: (tick) => tick.toolCalls.some((c) => c.toolName === 'write_file'),
};

describe('gate()', () => {
  it('returns a frozen copy of a valid descriptor', () => {
    const descriptor = gate(valid);
    expect(descriptor).toEqual(valid);
    expect(descriptor).not.toBe(valid);
    expect(Object.isFrozen(descriptor)).toBe(true);
  });

  it('accepts every documented option', () => {
    expect(() =>
      gate({
        ...valid,
        clearWhen: () => false,
        clearableBy: 'host',
        maxBlocks: 0,
        requiresTools: ['run_tests'],
        initial: 'deferred',
      }),
    ).not.toThrow();
  });

  const invalid: Array<[string, Partial<Record<keyof GateDescriptor, unknown>>, string]> = [
    ['empty description', { description: '  ' }, 'gate() needs a non-empty `description`.'],
    ['missing instructions', { instructions: undefined }, 'gate() needs non-empty `instructions`'],
    [
      'activateWhen not a function',
      { activateWhen: true },
      'gate() activateWhen must be a function',
    ],
    [
      'clearWhen not a function',
      { clearWhen: 'tests pass' },
      'gate() clearWhen must be a function',
    ],
    [
      'negative maxBlocks',
      { maxBlocks: -1 },
      'gate() maxBlocks must be a whole number >= 0, got -1.',
    ],
    ['fractional maxBlocks', { maxBlocks: 1.5 }, 'got 1.5'],
    [
      'unknown clearableBy',
      { clearableBy: 'admin' },
      'gate() clearableBy must be "model", "host" or "supervisor", got "admin".',
    ],
    [
      'unknown initial',
      { initial: 'on' },
      'gate() initial must be "inactive", "active" or "deferred", got "on".',
    ],
    [
      'requiresTools not an array',
      { requiresTools: 'run_tests' },
      'gate() requiresTools must be an array of tool names',
    ],
    ['empty tool name', { requiresTools: [''] }, 'requiresTools must be an array of tool names'],
  ];
  for (const [what, patch, message] of invalid) {
    it(`rejects ${what} with a KnobDeclarationError`, () => {
      const attempt = () => gate({ ...valid, ...patch } as GateDescriptor);
      expect(attempt).toThrow(KnobDeclarationError);
      expect(attempt).toThrow(message);
    });
  }

  it('names the caller in the message', () => {
    expect(() =>
      validateGateDescriptor({ ...valid, description: '' }, 'useGate("verification")'),
    ).toThrow('useGate("verification") needs a non-empty `description`.');
    expect(() => validateGateDescriptor(null as never, '<Gate>')).toThrow(
      '<Gate> needs a descriptor object',
    );
  });
});
