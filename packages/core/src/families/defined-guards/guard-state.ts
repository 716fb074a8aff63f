import type { ZodType } from 'zod';
import type { JsonValue } from '../../ground/json.js';
import type { SessionState } from '../../state/session-state.js';
import { GuardStateError } from './defined-guard-errors.js';

/** `state.guards.<name>` followed by a path inside the guard's state, as a reader would write it. */
export function statePath(name: string, path: readonly PropertyKey[] = []): string {
  const head = /^[A-Za-z_$][\w$]*$/.test(name)
    ? `state.guards.${name}`
    : `state.guards[${JSON.stringify(name)}]`;
  return path.reduce<string>(
    (at, key) =>
      typeof key === 'number'
        ? `${at}[${key}]`
        : typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)
          ? `${at}.${key}`
          : `${at}[${JSON.stringify(String(key))}]`,
    head,
  );
}

/** The guard's slice of the session state, or its initial state before the first `setState`. */
export function guardStateOf(state: SessionState, name: string, initial: unknown): unknown {
  const slices = state.guards;
  return slices !== undefined && Object.hasOwn(slices, name) ? slices[name] : initial;
}

/**
 * Where `value` stops being JSON (`undefined` when it is JSON): a guard's state travels in
 * snapshots, so a Date, a Map, a function or NaN would come back as something else.
 */
export function jsonProblem(
  value: unknown,
  path: PropertyKey[] = [],
): { path: PropertyKey[]; problem: string } | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') {
    return Number.isFinite(value) ? undefined : { path, problem: `is ${value}, not a JSON number` };
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = jsonProblem(value[i], [...path, i]);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      return {
        path,
        problem: `is a ${value.constructor?.name ?? 'non-plain object'}, not plain JSON`,
      };
    }
    for (const [key, item] of Object.entries(value)) {
      // An undefined property is dropped by JSON, as in the rest of the session state.
      if (item === undefined) continue;
      const found = jsonProblem(item, [...path, key]);
      if (found) return found;
    }
    return undefined;
  }
  return {
    path,
    problem: `is ${typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`}, not JSON`,
  };
}

/** Throws a `GuardStateError` naming the path when `value` is not JSON or fails `schema`. */
export function checkGuardState(
  name: string,
  value: unknown,
  schema: ZodType | undefined,
  when: 'restored' | 'set',
): asserts value is JsonValue {
  const notJson = jsonProblem(value);
  if (notJson)
    throw new GuardStateError(name, statePath(name, notJson.path), notJson.problem, when);
  if (schema === undefined) return;
  const parsed = schema.safeParse(value);
  if (parsed.success) return;
  const issue = parsed.error.issues[0];
  throw new GuardStateError(
    name,
    statePath(name, issue?.path ?? []),
    `is invalid: ${issue?.message ?? parsed.error.message}`,
    when,
  );
}

/**
 * Per session (keyed by its registry): the value of each guard's state last checked against its
 * schema, so a restored value is checked once, and a value `setState` checked is not checked again.
 */
const validated = new WeakMap<object, Map<string, unknown>>();

export function markValidated(session: object, name: string, value: unknown): void {
  let byName = validated.get(session);
  if (byName === undefined) {
    byName = new Map();
    validated.set(session, byName);
  }
  byName.set(name, value);
}

export function isValidated(session: object, name: string, value: unknown): boolean {
  return validated.get(session)?.get(name) === value && validated.get(session)?.has(name) === true;
}
