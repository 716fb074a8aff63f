import { type ContextBudgetOptions, createSession } from '@agate/core';
import type { CompiledContext, SeedState } from '@agate/core/guards';
import { subAgentElement } from '@agate/core/internal';
import type { ReactNode } from 'react';
import { scriptedModel } from './scripted-model.js';

export interface RenderContextOptions {
  context?: ContextBudgetOptions;
  /**
   * Render what a call of this `<SubAgent>` (rendered in `element`) runs, with this input,
   * instead of `element` itself: a sub-agent's context for snapshot tests. `state` seeds the
   * sub-agent's session then.
   */
  subAgent?: { name: string; input: unknown };
}

/**
 * Renders an agent tree once, with optional seed state (timeline, knobs, gates...), and
 * returns what the model would be sent (pruned to `options.context` when given). No model
 * is called.
 */
export function renderContext(
  element: ReactNode,
  state?: SeedState,
  options: RenderContextOptions = {},
): CompiledContext {
  const tree = options.subAgent === undefined ? element : subAgentTree(element, options.subAgent);
  const session = createSession(tree, {
    model: scriptedModel([]),
    ...(state !== undefined ? { state } : {}),
    ...(options.context !== undefined ? { context: options.context } : {}),
  });
  try {
    return session.render();
  } finally {
    session.dispose();
  }
}

function subAgentTree(element: ReactNode, call: { name: string; input: unknown }): ReactNode {
  const parent = createSession(element, { model: scriptedModel([]) });
  try {
    parent.render();
    return subAgentElement(parent, call.name, call.input);
  } finally {
    parent.dispose();
  }
}
