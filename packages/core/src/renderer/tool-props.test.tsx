import { scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineToolProp, functionPropCheck } from '../entries/guards.js';
import { createSession, InvalidElementError, Tool, User } from '../index.js';

declare module '../components/tool.js' {
  interface ToolGuardProps<I, O> {
    /** A test family's prop: how much a call costs. */
    costCents?: number;
    /** A test family's prop: a function of the input. */
    auditLine?: (input: I) => string;
  }
}

const checkCost = (tool: string, value: unknown) => {
  if (typeof value !== 'number' || value < 0) {
    throw new InvalidElementError(`<Tool name="${tool}"> costCents must be a number >= 0.`);
  }
};
defineToolProp('costCents', checkCost);
defineToolProp('auditLine', functionPropCheck('auditLine'));

const compiled = (props: Record<string, unknown>) =>
  createSession(
    <>
      <User>Go.</User>
      <Tool name="pay" input={z.object({})} execute={() => 'paid'} {...props} />
    </>,
    { model: scriptedModel([]) },
  ).render().tools[0];

describe('defineToolProp: the <Tool> props guards read, declared by whoever reads them', () => {
  it('a declared prop reaches the compiled tool, beside the built-in families’ props', () => {
    const audit = (input: object) => JSON.stringify(input);
    const tool = compiled({ costCents: 25, auditLine: audit, category: 'other', timeoutMs: 1_000 });
    expect(tool?.guard).toEqual({
      costCents: 25,
      auditLine: audit,
      category: 'other',
      timeoutMs: 1_000,
    });
    // An undeclared prop is not a guard's: it stays out.
    expect(compiled({ whatever: 1 })?.guard).toBeUndefined();
  });

  it('is checked where it is written', () => {
    expect(() => compiled({ costCents: -1 })).toThrow(
      '<Tool name="pay"> costCents must be a number >= 0.',
    );
    expect(() => compiled({ auditLine: 'text' })).toThrow(
      '<Tool name="pay"> auditLine must be a function of the input.',
    );
    // The built-in families' checks go the same way.
    expect(() => compiled({ category: 'typo' })).toThrow('has an unknown category');
    expect(() => compiled({ needsApproval: 'yes' })).toThrow(
      'needsApproval must be true, false or a function',
    );
  });

  it('a prop declared twice with another check is refused; the same declaration again is not', () => {
    expect(() => defineToolProp('costCents', checkCost)).not.toThrow();
    expect(() => defineToolProp('costCents', () => {})).toThrow(
      /declared twice with different checks/,
    );
    expect(() => defineToolProp('category')).toThrow(/declared twice/);
  });
});
