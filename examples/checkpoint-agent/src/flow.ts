import {
  approveCheckpoint,
  createSession,
  type EventListener,
  type RunResult,
  type SessionStore,
} from '@agate/core';
import type { LanguageModel } from 'ai';
import { createElement } from 'react';
import { CheckpointAgent } from './agent.js';

export interface FlowOptions {
  model: LanguageModel;
  root: string;
  /** Where the session waits between runs (a file store: a supervisor may be another process). */
  store: SessionStore;
  sessionId: string;
  onEvent?: EventListener;
  /** Called while the session waits; the example approves (the CLI would do the same). */
  review: (checkpoint: string, result: RunResult) => Promise<void> | void;
}

/**
 * Runs the agent until it finishes. Every time a run ends `awaiting-approval` the session is
 * already saved in the store; `review` decides on the stored session, and the next run starts
 * from what the store holds, as a fresh process would.
 */
export async function runWithReviews(options: FlowOptions): Promise<RunResult[]> {
  const results: RunResult[] = [];
  for (let round = 0; round < 5; round++) {
    const snapshot = await options.store.load(options.sessionId);
    const session = createSession(createElement(CheckpointAgent, { root: options.root }), {
      model: options.model,
      store: options.store,
      ...(options.onEvent !== undefined ? { onEvent: options.onEvent } : {}),
      ...(snapshot !== undefined ? { snapshot } : { id: options.sessionId }),
    });
    const result = await session.run();
    session.dispose();
    results.push(result);
    if (result.status !== 'awaiting-approval') return results;
    const pending = Object.entries(result.checkpoints).find(([, s]) => s === 'pending')?.[0];
    if (pending === undefined) return results;
    await options.review(pending, result);
  }
  return results;
}

/** The supervisor of the example: approves with a note, on the stored session. */
export function approver(store: SessionStore, sessionId: string) {
  return (checkpoint: string) =>
    approveCheckpoint(store, sessionId, checkpoint, {
      by: 'reviewer',
      note: checkpoint === 'T-1' ? 'greet() looks right. Go on with the test.' : 'Thanks.',
    }).then(() => undefined);
}
