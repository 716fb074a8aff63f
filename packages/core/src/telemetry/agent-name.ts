import { isValidElement, type ReactNode } from 'react';

/** When the root is not a named component (a fragment, a plain element, a list). */
export const DEFAULT_AGENT_NAME = 'agent';

/**
 * `gen_ai.agent.name` for a session: the `name` option, else the root component's name
 * (`<Coder />` → `Coder`, its `displayName` first), else `agent`.
 */
export function agentName(element: ReactNode, name: string | undefined): string {
  if (name !== undefined && name.trim() !== '') return name;
  if (isValidElement(element)) {
    const type = element.type as unknown;
    if (typeof type === 'function' || (typeof type === 'object' && type !== null)) {
      const named = type as { displayName?: unknown; name?: unknown };
      for (const candidate of [named.displayName, named.name]) {
        if (typeof candidate === 'string' && candidate !== '') return candidate;
      }
    }
  }
  return DEFAULT_AGENT_NAME;
}
