import { isValidSessionId } from '@agate/core/stores';
import { InvalidRunRequestError } from './errors.js';
import { type RunRequest, runIdPrefix } from './options.js';

/**
 * The limits a run request is held to. A request reaches the worker through the database, so
 * anyone who can write DBOS's queue (or call `startRun` with what a web client sent) decides
 * what is in it: it is checked before anything runs, in the client and again in the workflow.
 */
export const RUN_REQUEST_LIMITS = {
  /** The input, as JSON, in UTF-8 bytes (1 MiB). */
  inputBytes: 1024 * 1024,
  /** Nesting of the input's arrays and objects. */
  inputDepth: 64,
  /** An agent's name, in characters. */
  agentName: 200,
  /** `runOptions.maxTicks` at the most. */
  maxTicks: 100_000,
} as const;

const REQUEST_KEYS = new Set(['agent', 'sessionId', 'input', 'runOptions']);
const RUN_OPTION_KEYS = new Set(['maxTicks', 'context']);
const CONTEXT_KEYS = new Set(['maxTokens', 'lowWater']);

/**
 * Checks a run request as the workflow received it and returns it typed; throws
 * `InvalidRunRequestError` naming the first problem. `workflowId`, when given, must belong to
 * the request's session (a forged workflow cannot write another session's state).
 */
export function checkRunRequest(value: unknown, workflowId?: string): RunRequest {
  if (!isPlainObject(value)) refuse(`it is ${describe(value)}, not an object`);
  for (const key of Object.keys(value)) {
    if (!REQUEST_KEYS.has(key)) refuse(`unknown field ${JSON.stringify(cut(key))}`);
  }
  const { agent, sessionId, input = null, runOptions } = value;
  if (typeof agent !== 'string' || agent === '' || agent.length > RUN_REQUEST_LIMITS.agentName) {
    refuse(
      `agent must be a name of 1 to ${RUN_REQUEST_LIMITS.agentName} characters (got ${describe(agent)})`,
    );
  }
  if (!isValidSessionId(sessionId)) {
    refuse(`sessionId ${describe(sessionId)} is not a valid session id`);
  }
  if (workflowId !== undefined && !workflowId.startsWith(runIdPrefix(sessionId))) {
    refuse(`the run ${JSON.stringify(cut(workflowId))} does not belong to session "${sessionId}"`);
  }
  checkInput(input);
  if (runOptions !== undefined) checkRunOptions(runOptions);
  return {
    agent,
    sessionId,
    input: input as RunRequest['input'],
    ...(runOptions !== undefined ? { runOptions: runOptions as RunRequest['runOptions'] } : {}),
  };
}

/** JSON only (what a recorded workflow input can hold), bounded in depth and size. */
function checkInput(input: unknown): void {
  let bytes = 0;
  const visit = (node: unknown, depth: number): void => {
    if (depth > RUN_REQUEST_LIMITS.inputDepth) {
      refuse(`input nests deeper than ${RUN_REQUEST_LIMITS.inputDepth} levels`);
    }
    if (node === null || typeof node === 'boolean') return;
    if (typeof node === 'number') {
      if (!Number.isFinite(node)) refuse('input holds a number that is not finite');
      return;
    }
    if (typeof node === 'string') {
      bytes += Buffer.byteLength(node);
    } else if (Array.isArray(node)) {
      for (const item of node) visit(item, depth + 1);
    } else if (isPlainObject(node)) {
      for (const [key, item] of Object.entries(node)) {
        bytes += Buffer.byteLength(key);
        visit(item, depth + 1);
      }
    } else {
      refuse(`input holds ${describe(node)}, which is not JSON`);
    }
    if (bytes > RUN_REQUEST_LIMITS.inputBytes) {
      refuse(`input is over ${RUN_REQUEST_LIMITS.inputBytes} bytes`);
    }
  };
  visit(input, 0);
  // Strings and keys are counted as they go; the exact JSON size (quotes, numbers) last.
  if (Buffer.byteLength(JSON.stringify(input)) > RUN_REQUEST_LIMITS.inputBytes) {
    refuse(`input is over ${RUN_REQUEST_LIMITS.inputBytes} bytes as JSON`);
  }
}

function checkRunOptions(options: unknown): void {
  if (!isPlainObject(options)) refuse(`runOptions is ${describe(options)}, not an object`);
  for (const key of Object.keys(options)) {
    if (!RUN_OPTION_KEYS.has(key)) {
      refuse(`runOptions has unknown field ${JSON.stringify(cut(key))}`);
    }
  }
  const { maxTicks, context } = options;
  if (
    maxTicks !== undefined &&
    !(
      Number.isInteger(maxTicks) &&
      (maxTicks as number) > 0 &&
      (maxTicks as number) <= RUN_REQUEST_LIMITS.maxTicks
    )
  ) {
    refuse(`runOptions.maxTicks must be a whole number from 1 to ${RUN_REQUEST_LIMITS.maxTicks}`);
  }
  if (context === undefined) return;
  if (!isPlainObject(context)) refuse(`runOptions.context is ${describe(context)}, not an object`);
  for (const [key, item] of Object.entries(context)) {
    if (!CONTEXT_KEYS.has(key)) {
      refuse(`runOptions.context has unknown field ${JSON.stringify(cut(key))}`);
    }
    if (item !== undefined && !(Number.isInteger(item) && (item as number) > 0)) {
      refuse(`runOptions.context.${key} must be a positive whole number`);
    }
  }
  if (context.maxTokens === undefined) refuse('runOptions.context needs maxTokens');
}

function refuse(reason: string): never {
  throw new InvalidRunRequestError(reason);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(cut(value));
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Untrusted text in a message: at most 80 characters, control characters escaped by JSON. */
function cut(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
