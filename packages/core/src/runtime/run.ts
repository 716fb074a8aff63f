import type { ReactNode } from 'react';
import { createSession, type RunResult, type SessionOptions } from './session.js';

/** Renders the agent and runs it to the end: `createSession(element, options).run()`. */
export async function run<O = unknown>(
  element: ReactNode,
  options: SessionOptions,
): Promise<RunResult<O>> {
  const session = createSession(element, options);
  try {
    return await session.run();
  } finally {
    session.dispose();
  }
}
