import { APICallError, RetryError } from 'ai';
import {
  DuplicateToolError,
  InvalidElementError,
  RenderError,
} from '../components/render-errors.js';
import { ContextBudgetError } from '../context-budget/context-budget-errors.js';
import { AgateError, type FaultStep, nameErrorClass } from '../ground/agate-error.js';
import { errorMessage } from '../ground/thrown.js';
import { SnapshotError } from '../persistence/persistence-errors.js';
import type { SessionStore } from '../persistence/session-store.js';
import { GateDeadlockError, KnobDeclarationError, ModelCallError } from './runtime-errors.js';

/**
 * Something that is not one of Agate's own errors ended a run (a guard hook's `TypeError`, a
 * custom store's driver error, ...). The original is its `cause`; `tick` and `step` say where.
 */
export class RunError extends AgateError {
  static {
    nameErrorClass(RunError, 'RunError');
  }
}

/** Steps of errors that are not Agate's own, kept aside so the error itself stays untouched. */
const foreignSteps = new WeakMap<object, FaultStep>();

/**
 * Marks `error` as having happened in `step`, unless an inner layer already said where, and
 * returns it unchanged (code between here and the tick loop, such as a guard family catching a
 * store's error, still sees the original). `atTick` turns it into a located error.
 */
export function atStep(error: unknown, step: FaultStep): unknown {
  if (AgateError.isInstance(error)) error.step ??= step;
  else if (typeof error === 'object' && error !== null && !foreignSteps.has(error)) {
    foreignSteps.set(error, step);
  }
  return error;
}

/**
 * Marks `error` as having happened in `tick`; the step, when no inner layer marked it, is
 * inferred from the error's type. What the tick loop does between the model call and the
 * tools is guard hooks, so an unmarked foreign error is a guard's.
 */
export function atTick(error: unknown, tick: number): AgateError {
  const located = asAgateError(error);
  located.tick ??= tick;
  const marked = typeof error === 'object' && error !== null ? foreignSteps.get(error) : undefined;
  located.step ??= marked ?? inferStep(located);
  return located;
}

/** `Tick 3, model call: The model call failed: …` — the reason of a run that ended `error`. */
export function describeFault(error: AgateError): string {
  if (error.tick === undefined) return error.message;
  return `Tick ${error.tick}, ${error.step ?? 'guard'}: ${error.message}`;
}

/** The end of a run that failed inside: its located error and the reason naming it. */
export function runFault(error: unknown, tick: number): { reason: string; error: AgateError } {
  const located = atTick(error, tick);
  return { reason: describeFault(located), error: located };
}

function asAgateError(error: unknown): AgateError {
  if (AgateError.isInstance(error)) return error;
  return new RunError(errorMessage(error), { cause: error });
}

function inferStep(error: AgateError): FaultStep {
  if (ModelCallError.isInstance(error)) return 'model call';
  if (SnapshotError.isInstance(error)) return 'store';
  if (
    RenderError.isInstance(error) ||
    InvalidElementError.isInstance(error) ||
    DuplicateToolError.isInstance(error) ||
    KnobDeclarationError.isInstance(error) ||
    GateDeadlockError.isInstance(error) ||
    // Pruning to the budget is the last step of compiling the context.
    ContextBudgetError.isInstance(error)
  ) {
    return 'render';
  }
  return 'guard';
}

/**
 * A `ModelCallError` whose cause is a provider's HTTP error (possibly wrapped in the AI SDK's
 * `RetryError`) is rebuilt to keep what a host needs to react: the status code, whether the
 * provider called it retryable, and how many attempts were made. Other errors pass unchanged.
 */
export function withProviderDetails(error: unknown): unknown {
  if (!ModelCallError.isInstance(error)) return error;
  const details = providerDetails(error.cause);
  if (details === undefined) return error;
  const { statusCode, retryable, attempts, last } = details;
  const broke = statusCode !== undefined && statusCode >= 200 && statusCode < 300;
  const facts = broke
    ? [`the answer broke off after HTTP ${statusCode}`]
    : [
        ...(statusCode !== undefined ? [`HTTP ${statusCode}`] : []),
        attempts > 1
          ? `gave up after ${attempts} attempts`
          : retryable === false
            ? 'not retryable'
            : 'not retried: maxRetries is 0',
      ];
  const enriched = new ModelCallError(
    `The model call failed: ${messageChain(last)} (${facts.join(', ')})`,
    { cause: error.cause },
  );
  if (statusCode !== undefined) enriched.statusCode = statusCode;
  if (retryable !== undefined) enriched.retryable = retryable;
  enriched.attempts = attempts;
  return enriched;
}

interface ProviderDetails {
  statusCode?: number;
  retryable?: boolean;
  attempts: number;
  last: unknown;
}

function providerDetails(cause: unknown): ProviderDetails | undefined {
  let attempts = 1;
  let last = cause;
  if (RetryError.isInstance(cause)) {
    attempts = cause.errors.length;
    last = cause.lastError;
  }
  if (!APICallError.isInstance(last)) {
    return attempts > 1 ? { attempts, last } : undefined;
  }
  return {
    ...(last.statusCode !== undefined ? { statusCode: last.statusCode } : {}),
    retryable: last.isRetryable,
    attempts,
    last,
  };
}

/** `Failed to process successful response: terminated: other side closed` — the causes say what happened. */
function messageChain(error: unknown): string {
  const messages = [errorMessage(error)];
  let cause = error instanceof Error ? error.cause : undefined;
  for (let depth = 0; cause !== undefined && depth < 3; depth++) {
    const message = errorMessage(cause);
    if (!messages.includes(message)) messages.push(message);
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return messages.join(': ');
}

/**
 * The session's store, with every failure marked as the `store` step: a custom store (a
 * database, object storage) throws its own errors, which would otherwise read as a guard's.
 * A proxy, so methods a store has beyond `SessionStore` pass through too.
 */
export function storeAtStep(store: SessionStore): SessionStore {
  const mark = (error: unknown): never => {
    throw atStep(error, 'store');
  };
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        try {
          const result: unknown = value.apply(target, args);
          return result instanceof Promise ? result.catch(mark) : result;
        } catch (error) {
          return mark(error);
        }
      };
    },
  });
}
