import { describe, expect, it } from 'vitest';
import { InvalidRunRequestError } from './errors.js';
import { checkRunRequest, RUN_REQUEST_LIMITS } from './run-request.js';

const ok = { agent: 'greeter', sessionId: 's-1', input: { name: 'Ada' } };

describe('checkRunRequest', () => {
  it('passes what startRun sends, with the input defaulting to null', () => {
    expect(checkRunRequest(ok, 'agate/s-1/abc')).toEqual(ok);
    expect(checkRunRequest({ agent: 'a', sessionId: 's' })).toEqual({
      agent: 'a',
      sessionId: 's',
      input: null,
    });
    const withOptions = {
      ...ok,
      runOptions: { maxTicks: 5, context: { maxTokens: 900, lowWater: 600 } },
    };
    expect(checkRunRequest(withOptions)).toEqual(withOptions);
  });

  it.each([
    ['not an object', 'run', /not an object/],
    ['an array', [ok], /an array, not an object/],
    ['an unknown field', { ...ok, store: 'x' }, /unknown field "store"/],
    ['an empty agent', { ...ok, agent: '' }, /agent must be a name/],
    ['a long agent name', { ...ok, agent: 'a'.repeat(201) }, /agent must be a name/],
    ['a path as session id', { ...ok, sessionId: '../x' }, /not a valid session id/],
    ['a number as session id', { ...ok, sessionId: 7 }, /not a valid session id/],
    ['a non-finite number', { ...ok, input: { n: Number.NaN } }, /not finite/],
    ['a function', { ...ok, input: { f: () => 1 } }, /not JSON/],
    ['a date', { ...ok, input: new Date(0) }, /not JSON/],
    ['too deep', { ...ok, input: deep(RUN_REQUEST_LIMITS.inputDepth + 1) }, /nests deeper/],
    ['too big', { ...ok, input: 'x'.repeat(RUN_REQUEST_LIMITS.inputBytes) }, /over 1048576 bytes/],
    ['bad maxTicks', { ...ok, runOptions: { maxTicks: 1.5 } }, /maxTicks/],
    ['huge maxTicks', { ...ok, runOptions: { maxTicks: 1e9 } }, /maxTicks/],
    ['an unknown run option', { ...ok, runOptions: { steps: {} } }, /unknown field "steps"/],
    [
      'a tokenizer in context',
      { ...ok, runOptions: { context: { maxTokens: 9, tokenizer: 'x' } } },
      /unknown field "tokenizer"/,
    ],
    [
      'context without maxTokens',
      { ...ok, runOptions: { context: { lowWater: 9 } } },
      /needs maxTokens/,
    ],
  ])('refuses %s', (_, request, says) => {
    const attempt = () => checkRunRequest(request);
    expect(attempt).toThrow(InvalidRunRequestError);
    expect(attempt).toThrow(says);
  });

  it("refuses a workflow id of another session's runs", () => {
    expect(() => checkRunRequest(ok, 'agate/s-2/abc')).toThrow(/does not belong to session "s-1"/);
    // A prefix of another id is not enough: the session's own folder, slash included.
    expect(() => checkRunRequest(ok, 'agate/s-10/abc')).toThrow(/does not belong/);
  });

  it('keeps untrusted text in messages short and escaped', () => {
    const key = `k\u001b[31m${'x'.repeat(500)}`;
    const error = (() => {
      try {
        checkRunRequest({ ...ok, [key]: 1 });
      } catch (caught) {
        return caught as Error;
      }
    })();
    expect(error?.message).toContain('\\u001b[31m');
    expect(error?.message.length).toBeLessThan(200);
  });
});

function deep(levels: number): unknown {
  let node: unknown = 'leaf';
  for (let i = 0; i < levels; i++) node = [node];
  return node;
}
