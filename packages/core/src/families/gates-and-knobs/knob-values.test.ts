import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { KnobDeclarationError } from '../../runtime/runtime-errors.js';
import type { GateInfo } from './gate-types.js';
import type { KnobInfo } from './knob-types.js';
import {
  checkGateValueFromModel,
  checkKnobValue,
  validateKnobName,
  validateKnobOptions,
} from './knob-values.js';

const mode: KnobInfo = {
  name: 'mode',
  description: 'How to work',
  value: 'plan',
  options: ['plan', 'build', 3, true],
};

const budget: KnobInfo = {
  name: 'budget',
  description: 'Files you may touch',
  value: 3,
  schema: z.number().int().min(1).max(10),
};

function gateInfo(overrides: Partial<GateInfo> = {}): GateInfo {
  return {
    name: 'verification',
    rendered: true,
    state: 'active',
    description: 'Verify your changes',
    instructions: 'Run the tests.',
    clearableBy: 'model',
    blocks: 0,
    maxBlocks: 5,
    ...overrides,
  };
}

describe('checkKnobValue', () => {
  it('accepts exactly the listed options (no coercion)', () => {
    expect(checkKnobValue(mode, 'build')).toEqual({ ok: true, value: 'build' });
    expect(checkKnobValue(mode, 3)).toEqual({ ok: true, value: 3 });
    expect(checkKnobValue(mode, true)).toEqual({ ok: true, value: true });
    expect(checkKnobValue(mode, '3').ok).toBe(false);
    expect(checkKnobValue(mode, 'Build').ok).toBe(false);
  });

  it('names the knob and lists the allowed values on a bad value', () => {
    expect(checkKnobValue(mode, 'ship')).toEqual({
      ok: false,
      message: 'Invalid value "ship" for knob "mode". Allowed values: "plan", "build", 3, true.',
    });
  });

  it('checks schema knobs with zod and explains the failure', () => {
    expect(checkKnobValue(budget, 4)).toEqual({ ok: true, value: 4 });
    const bad = checkKnobValue(budget, 40);
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.message).toMatch(/^Invalid value 40 for knob "budget":\n/);
    expect(!bad.ok && bad.message).toContain('<=10');
  });
});

describe('checkGateValueFromModel', () => {
  it('lets the model clear, defer or activate a model gate', () => {
    for (const value of ['inactive', 'deferred', 'active'] as const) {
      expect(checkGateValueFromModel(gateInfo(), value)).toEqual({ ok: true, state: value });
    }
  });

  it('lists the three states on an invalid value', () => {
    for (const value of ['cleared', 0, true, null]) {
      const check = checkGateValueFromModel(gateInfo(), value);
      expect(check.ok).toBe(false);
      expect(!check.ok && check.message).toContain(
        `Invalid value ${JSON.stringify(value)} for gate "verification". Allowed values: "inactive"`,
      );
      expect(!check.ok && check.message).toContain('"deferred"');
    }
  });

  it('refuses to let the model clear a supervisor gate, and says only a supervisor can', () => {
    const check = checkGateValueFromModel(gateInfo({ clearableBy: 'supervisor' }), 'inactive');
    expect(check).toEqual({
      ok: false,
      message:
        'Gate "verification" can only be cleared by a supervisor, not through set_knob. It guards: Verify your changes. Finish the work it asks for; a person will review and clear it.',
    });
  });

  it('refuses to let the model clear a host gate, and repeats what to do', () => {
    const check = checkGateValueFromModel(
      gateInfo({ clearableBy: 'host', state: 'deferred' }),
      'inactive',
    );
    expect(check.ok).toBe(false);
    expect(!check.ok && check.message).toContain(
      'is cleared by the host when it verifies the work',
    );
    expect(!check.ok && check.message).toContain('Do what it asks: Run the tests.');
  });

  it('still lets the model defer host and supervisor gates (deferring never unblocks exit)', () => {
    for (const clearableBy of ['host', 'supervisor'] as const) {
      expect(checkGateValueFromModel(gateInfo({ clearableBy }), 'deferred')).toEqual({
        ok: true,
        state: 'deferred',
      });
    }
  });

  it('does not refuse "inactive" for a gate that is already inactive', () => {
    expect(
      checkGateValueFromModel(gateInfo({ clearableBy: 'host', state: 'inactive' }), 'inactive'),
    ).toEqual({ ok: true, state: 'inactive' });
  });
});

describe('knob declarations', () => {
  it('accepts usable names and rejects the rest', () => {
    for (const name of ['mode', 'plan-choice', 'phase.2', 'ns:gate', '_x']) {
      expect(() => validateKnobName(name, 'useKnob()')).not.toThrow();
    }
    for (const name of ['', ' mode', 'two words', '#continue-gate', 'x'.repeat(65), 42]) {
      expect(() => validateKnobName(name, 'useKnob()')).toThrow(KnobDeclarationError);
    }
    expect(() => validateKnobName('two words', 'useGate()')).toThrow(
      'useGate() name "two words" is not usable',
    );
  });

  it('needs a description, exactly one of options or schema, and an allowed initial value', () => {
    const cases: Array<[unknown, string]> = [
      [{ options: ['a'], initial: 'a' }, 'needs a non-empty `description`'],
      [{ description: 'd', initial: 'a' }, 'needs exactly one of `options`'],
      [
        { description: 'd', options: ['a'], schema: z.string(), initial: 'a' },
        'needs exactly one of `options`',
      ],
      [{ description: 'd', options: [], initial: 'a' }, 'options must be a non-empty array'],
      [{ description: 'd', options: ['a'] }, 'needs an `initial` value'],
      [
        { description: 'd', options: ['a', 'b'], initial: 'c' },
        'useKnob() "mode" initial value is not allowed. Invalid value "c" for knob "mode". Allowed values: "a", "b".',
      ],
      [{ description: 'd', schema: z.number().min(1), initial: 0 }, 'initial value is not allowed'],
    ];
    for (const [options, message] of cases) {
      expect(() => validateKnobOptions('mode', options as never, 'useKnob()')).toThrow(message);
    }
    expect(() =>
      validateKnobOptions('mode', { description: 'd', options: ['a'], initial: 'a' }, 'useKnob()'),
    ).not.toThrow();
  });
});
