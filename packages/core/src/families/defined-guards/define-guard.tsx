import { type ReactNode, useLayoutEffect, useRef } from 'react';
import { FAMILY_SLICES } from '../../guard-seam/initial-state.js';
import { useSessionContext } from '../../runtime/session-context.js';
import { GuardDefinitionError, GuardHookError } from './defined-guard-errors.js';
import type { GuardComponent, GuardDefinition, GuardRenderContext } from './guard-definition.js';
import {
  type AnyGuardDefinition,
  DEFINED_FAMILY,
  type GuardMount,
  registryName,
} from './guard-mount.js';
import { checkGuardState, guardStateOf, isValidated, markValidated } from './guard-state.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const HOOKS = [
  'render',
  'beforeModelCall',
  'beforeToolCall',
  'afterToolCall',
  'tickEnd',
  'exitAttempt',
] as const;
const DEFAULT_MAX_REFUSALS = 5;

/**
 * Makes a guard: a component that, while it is mounted, the runtime asks at fixed points of
 * every tick (before the model call, around each tool call, at tick end, at an exit attempt).
 * Its state is JSON at `session.state.guards[name]`: it travels in snapshots and is restored
 * (and checked against `stateSchema`) with the session. See docs/guards.md.
 *
 * `P` (the props) comes from `propsSchema`, or is given: `defineGuard<Props, State>({...})`.
 */
export function defineGuard<P extends object = Record<string, never>, S = undefined>(
  definition: GuardDefinition<P, S>,
): GuardComponent<P> {
  const checked = checkDefinition(definition as unknown as AnyGuardDefinition);
  const { name } = checked;
  const key = registryName(name);
  const maxRefusals = checked.maxRefusals ?? DEFAULT_MAX_REFUSALS;

  // biome-ignore lint/correctness/noComponentHookFactories: made once per guard, where the guard is defined (module level), never per render.
  function DefinedGuard(props: P): ReactNode {
    const { state, registry, session } = useSessionContext(`<${name}> (a guard)`);
    const mount: GuardMount = { definition: checked, props: propsOf(checked, props), maxRefusals };
    const latest = useRef(mount);
    latest.current = mount;
    useLayoutEffect(
      () =>
        registry.register(key, () => ({
          kind: 'guard',
          family: DEFINED_FAMILY,
          name: key,
          config: latest.current,
        })),
      [registry],
    );
    const slices = state.guards;
    if (slices !== undefined && Object.hasOwn(slices, name)) {
      const stored = slices[name];
      // Checked once per value: a restored state on the first render, not on every tick.
      if (!isValidated(registry, name, stored)) {
        checkGuardState(name, stored, checked.stateSchema, 'restored');
        markValidated(registry, name, stored);
      }
    }
    const render = checked.render;
    if (render === undefined) return null;
    const model = session.model;
    const context: GuardRenderContext<unknown, unknown> = {
      name,
      props: mount.props,
      state: guardStateOf(state, name, checked.initialState),
      tick: state.tick + 1,
      usage: state.usage,
      sessionId: state.id,
      modelId: typeof model === 'string' ? model : model.modelId,
      timeline: state.timeline,
    };
    try {
      return render(context);
    } catch (error) {
      throw new GuardHookError(name, 'render', error);
    }
  }
  DefinedGuard.displayName = `Guard(${name})`;
  return Object.assign(DefinedGuard, { guardName: name }) as GuardComponent<P>;
}

/** Fails where the guard is defined, not at the first tick that would have used it. */
function checkDefinition(definition: AnyGuardDefinition): AnyGuardDefinition {
  if (typeof definition !== 'object' || definition === null) {
    throw new GuardDefinitionError('defineGuard needs an object: defineGuard({ name, ...hooks }).');
  }
  const { name } = definition;
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new GuardDefinitionError(
      `defineGuard({ name: ${JSON.stringify(name)} }): a guard's name is 1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit; it names the guard's state (state.guards[name]) and its refusals.`,
    );
  }
  if (FAMILY_SLICES.has(name)) {
    throw new GuardDefinitionError(
      `defineGuard({ name: "${name}" }): "${name}" is taken by a built-in guard family, whose state is at state.guards.${name}. Give the guard another name (the built-in ones are ${[...FAMILY_SLICES].join(', ')}).`,
    );
  }
  for (const hook of HOOKS) {
    const fn = definition[hook];
    if (fn !== undefined && typeof fn !== 'function') {
      throw new GuardDefinitionError(
        `Guard "${name}": ${hook} is ${typeof fn}, not a function. Give a function, or leave it out.`,
      );
    }
  }
  const { maxRefusals } = definition;
  if (maxRefusals !== undefined && !(Number.isInteger(maxRefusals) && maxRefusals >= 0)) {
    throw new GuardDefinitionError(
      `Guard "${name}": maxRefusals=${JSON.stringify(maxRefusals)} needs a whole number >= 0.`,
    );
  }
  for (const schema of ['stateSchema', 'propsSchema'] as const) {
    const given = definition[schema];
    if (
      given !== undefined &&
      (typeof given !== 'object' || given === null || !('safeParse' in given))
    ) {
      throw new GuardDefinitionError(
        `Guard "${name}": ${schema} needs a zod schema, for example z.object({ count: z.number() }).`,
      );
    }
  }
  if (definition.initialState !== undefined) {
    try {
      checkGuardState(name, definition.initialState, definition.stateSchema, 'set');
    } catch (error) {
      throw new GuardDefinitionError(
        `Guard "${name}": initialState does not fit: ${(error as Error).message}`,
      );
    }
  }
  return { ...definition };
}

function propsOf(definition: AnyGuardDefinition, props: object): unknown {
  const schema = definition.propsSchema;
  if (schema === undefined) return props;
  const parsed = schema.safeParse(props);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const at = issue?.path.length ? ` at ${issue.path.map(String).join('.')}` : '';
  throw new GuardDefinitionError(
    `<${definition.name}>: its props do not fit the guard's propsSchema${at}: ${issue?.message ?? parsed.error.message}.`,
  );
}
