import { APICallError, RetryError } from 'ai';
import { describe, expect, it } from 'vitest';
import { RenderError } from '../components/render-errors.js';
import { SnapshotError } from '../persistence/persistence-errors.js';
import { atStep, atTick, RunError, runFault, withProviderDetails } from './fault.js';
import { ModelCallError } from './runtime-errors.js';

const apiError = (statusCode: number, message = 'Bad Gateway') =>
  new APICallError({ message, url: 'http://x/v1/chat', requestBodyValues: {}, statusCode });

describe('locating a fault', () => {
  it('wraps a foreign error in a RunError that keeps it as the cause', () => {
    const thrown = { code: 'E_X' };
    const { reason, error } = runFault(thrown, 4);
    expect(error).toBeInstanceOf(RunError);
    expect(error.cause).toBe(thrown);
    expect(error).toMatchObject({ tick: 4, step: 'guard' });
    expect(reason).toBe('Tick 4, guard: {"code":"E_X"}');
  });

  it('infers the step from the error type, and keeps the innermost mark', () => {
    expect(atTick(new RenderError('r'), 1).step).toBe('render');
    expect(atTick(new SnapshotError('s'), 1).step).toBe('store');
    expect(atTick(new ModelCallError('m'), 1).step).toBe('model call');
    const original = new Error('in a tool');
    // A foreign error is marked, not replaced, until the tick loop locates it.
    expect(atStep(original, 'tool')).toBe(original);
    expect(atStep(original, 'store')).toBe(original);
    const located = atTick(original, 2);
    expect(located).toBeInstanceOf(RunError);
    expect(located).toMatchObject({ step: 'tool', tick: 2, cause: original });
    // A later, outer tick never overrides the first.
    expect(atTick(located, 9).tick).toBe(2);
    const own = new RenderError('r');
    expect(atStep(own, 'tool')).toBe(own);
    expect(own.step).toBe('tool');
  });
});

describe('withProviderDetails', () => {
  it('keeps status code, retryability and attempts of a RetryError', () => {
    const cause = new RetryError({
      message: 'Failed after 3 attempts. Last error: Bad Gateway',
      reason: 'maxRetriesExceeded',
      errors: [apiError(502), apiError(502), apiError(502)],
    });
    const error = withProviderDetails(new ModelCallError('The model call failed: x', { cause }));
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toMatchObject({
      message: 'The model call failed: Bad Gateway (HTTP 502, gave up after 3 attempts)',
      statusCode: 502,
      retryable: true,
      attempts: 3,
      cause,
    });
  });

  it('says when a retryable error was not retried', () => {
    const error = withProviderDetails(
      new ModelCallError('The model call failed: x', { cause: apiError(503, 'Unavailable') }),
    );
    expect((error as Error).message).toBe(
      'The model call failed: Unavailable (HTTP 503, not retried: maxRetries is 0)',
    );
  });

  it('leaves errors without provider details alone', () => {
    const plain = new ModelCallError('The model call failed: boom', { cause: new Error('boom') });
    expect(withProviderDetails(plain)).toBe(plain);
    const other = new Error('x');
    expect(withProviderDetails(other)).toBe(other);
  });
});
