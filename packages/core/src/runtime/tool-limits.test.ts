import { describe, expect, it } from 'vitest';
import { boundOutput, InvalidOptionError, toolLimits } from './tool-limits.js';

describe('toolLimits', () => {
  it('defaults to no time limit and 100,000 characters', () => {
    expect(toolLimits({})).toEqual({ timeoutMs: undefined, maxOutputChars: 100_000 });
  });

  it.each([
    [{ toolTimeoutMs: 0 }, /toolTimeoutMs must be a positive number of milliseconds, got 0/],
    [{ toolTimeoutMs: Number.NaN }, /got NaN/],
    [{ maxToolOutputChars: 1.5 }, /maxToolOutputChars must be a whole number > 0, got 1.5/],
    [{ maxToolOutputChars: -1 }, /got -1 \(default 100,000\)/],
  ])('refuses %j', (options, message) => {
    expect(() => toolLimits(options)).toThrow(InvalidOptionError);
    expect(() => toolLimits(options)).toThrow(message);
  });
});

describe('boundOutput', () => {
  it('leaves output that fits alone', () => {
    expect(boundOutput('abc', 3)).toBeUndefined();
    expect(boundOutput({ a: 1 }, 7)).toBeUndefined();
  });

  it('cuts a JSON value by its JSON text and keeps the value for the host', () => {
    const value = { items: [1, 2, 3] };
    const bounded = boundOutput(value, 10);
    expect(bounded?.output.startsWith('{"items":[')).toBe(true);
    expect(bounded?.output).toContain('[Output truncated: 7 of 17 characters cut;');
    expect(bounded?.truncated).toEqual({ originalChars: 17, fullOutput: value });
  });

  it('never splits a surrogate pair', () => {
    const bounded = boundOutput('ab😀cd', 3);
    expect(bounded?.output.startsWith('ab\n\n[Output truncated: 4 of 6 characters cut;')).toBe(
      true,
    );
  });
});
