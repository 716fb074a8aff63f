import { useLayoutEffect, useRef } from 'react';
import type { Declaration } from './declarations.js';
import { type SessionHandles, useSessionHandles } from './session-context.js';

/**
 * Registers a declaration for as long as the calling component is mounted. Layout effects
 * run inside the synchronous commit, so the declaration is in place before the tick compiles.
 * The ref keeps closures (activateWhen, ...) current without re-registering every render.
 */
export function useDeclaration(hook: string, declaration: Declaration): SessionHandles {
  // The handles only: a declaring component does not re-render on every tick's new state.
  const context = useSessionHandles(hook);
  const latest = useRef(declaration);
  latest.current = declaration;
  const { registry } = context;
  useLayoutEffect(
    () => registry.register(declaration.name, () => latest.current),
    [registry, declaration.name],
  );
  return context;
}
