import {
  type CompiledContext,
  type ContextBudgetOptions,
  createSession,
  type SessionState,
} from '@agate/core';
import type { ReactNode } from 'react';
import { scriptedModel } from './scripted-model.js';

/**
 * Renders an agent tree once, with optional seed state (timeline, knobs, gates...), and
 * returns what the model would be sent (pruned to `options.context` when given). No model
 * is called.
 */
export function renderContext(
  element: ReactNode,
  state?: Partial<SessionState>,
  options: { context?: ContextBudgetOptions } = {},
): CompiledContext {
  const session = createSession(element, {
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
