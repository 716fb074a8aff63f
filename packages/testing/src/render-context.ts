import { type CompiledContext, createSession, type SessionState } from '@agate/core';
import type { ReactNode } from 'react';
import { scriptedModel } from './scripted-model.js';

/**
 * Renders an agent tree once, with optional seed state (timeline, knobs, gates...), and
 * returns what the model would be sent. No model is called.
 */
export function renderContext(element: ReactNode, state?: Partial<SessionState>): CompiledContext {
  const session = createSession(element, {
    model: scriptedModel([]),
    ...(state !== undefined ? { state } : {}),
  });
  try {
    return session.render();
  } finally {
    session.dispose();
  }
}
