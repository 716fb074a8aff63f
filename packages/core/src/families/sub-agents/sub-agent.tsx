import type { ReactNode } from 'react';
import type { ZodType } from 'zod';
import { InvalidElementError } from '../../components/render-errors.js';
import { useDeclaration } from '../../runtime/use-declaration.js';
import {
  DEFAULT_SUBAGENT_CONCURRENCY,
  DEFAULT_SUBAGENT_MAX_TICKS,
  SUBAGENT_FAMILY,
  type SubAgentConfig,
  type SubAgentProps,
} from './sub-agent-types.js';

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A tool named `name` whose call runs a child agent, `agent(input)`, as a session of its own:
 * its own tree, gates, todos, checkpoints and budget; the parent's model (unless `model`),
 * abort signal, store, telemetry and approval keys. The call's result is the child's final text
 * or its `<Output>` object; a child that ends without an answer is a tool error. Renders nothing.
 */
export function SubAgent<S extends ZodType>(props: SubAgentProps<S>): ReactNode {
  const config = checked(props as unknown as SubAgentProps);
  useDeclaration('<SubAgent>', {
    kind: 'guard',
    family: SUBAGENT_FAMILY,
    name: `${SUBAGENT_FAMILY}:${config.name}`,
    config,
  });
  return null;
}

function checked(props: SubAgentProps): SubAgentConfig {
  const where = `<SubAgent name=${JSON.stringify(props.name)}>`;
  if (typeof props.name !== 'string' || !NAME.test(props.name)) {
    throw new InvalidElementError(
      `${where}: name must be 1-64 letters, digits, "_" or "-" (it is a tool name, and "#" and " › " separate paths).`,
    );
  }
  if (typeof props.description !== 'string' || props.description.trim() === '') {
    throw new InvalidElementError(
      `${where} needs a description: it tells the model when to hand work to this sub-agent.`,
    );
  }
  if (typeof props.input !== 'object' || props.input === null || !('safeParse' in props.input)) {
    throw new InvalidElementError(
      `${where} input needs a zod schema, for example z.object({ task: z.string() }).`,
    );
  }
  if (typeof props.agent !== 'function') {
    throw new InvalidElementError(
      `${where} agent needs a function from the call's input to the child's tree: agent={(input) => <Child {...input} />}.`,
    );
  }
  const maxTicks = props.maxTicks ?? DEFAULT_SUBAGENT_MAX_TICKS;
  if (!Number.isSafeInteger(maxTicks) || maxTicks < 1) {
    throw new InvalidElementError(
      `${where} maxTicks must be a whole number >= 1, got ${String(props.maxTicks)}.`,
    );
  }
  const maxConcurrency = props.maxConcurrency ?? DEFAULT_SUBAGENT_CONCURRENCY;
  if (!Number.isSafeInteger(maxConcurrency) || maxConcurrency < 1) {
    throw new InvalidElementError(
      `${where} maxConcurrency must be a whole number >= 1, got ${String(props.maxConcurrency)}.`,
    );
  }
  return {
    name: props.name,
    description: props.description,
    input: props.input,
    agent: props.agent as (input: unknown) => ReactNode,
    maxTicks,
    maxConcurrency,
    ...(props.model !== undefined ? { model: props.model } : {}),
    ...(props.context !== undefined ? { context: props.context } : {}),
  };
}
