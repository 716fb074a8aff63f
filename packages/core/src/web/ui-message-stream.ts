import type { AgateEventType } from '../runtime/events.js';
import type { RunOptions, RunResult, Session } from '../runtime/session.js';
import { type AgateUIMessageChunk, UIChunkMapper } from './ui-chunks.js';

/**
 * Options of `toUIMessageStream`: the run's options, the response message's id and what to do when
 * it ends.
 */
export interface UIMessageStreamRunOptions extends RunOptions {
  /** The response message's id (the `start` chunk's `messageId`); the AI SDK makes one otherwise. */
  messageId?: string;
  /**
   * Awaited after the run ends and before the stream finishes (the chat helper saves the
   * session here, so the next request of the chat finds it). A throw becomes an `error` chunk.
   */
  onFinish?: (result: RunResult) => void | Promise<void>;
}

/** The events the stream is made of. Naming `model:delta` makes `streaming: 'auto'` stream. */
const STREAMED: readonly AgateEventType[] = [
  'tick:start',
  'model:delta',
  'model:response',
  'tool:call',
  'tool:result',
  'tool:refused',
  'tool:held',
  'tick:end',
  'exit:blocked',
  'checkpoint:submitted',
  'checkpoint:pending',
  'checkpoint:approved',
  'checkpoint:rejected',
  'run:end',
];

/**
 * One `run()` of the session as an AI SDK 7 UI message stream: serve it with
 * `createUIMessageStreamResponse({ stream })`, read it with `useChat` or `readUIMessageStream`.
 * The run starts when the stream is first read; cancelling the stream (the client went away)
 * aborts the run, which ends `aborted` with the state of the last completed tick.
 */
export function toUIMessageStream(
  session: Session,
  runOptions: UIMessageStreamRunOptions = {},
): ReadableStream<AgateUIMessageChunk> {
  const { messageId, onFinish, signal, ...options } = runOptions;
  const cancel = new AbortController();
  const mapper = new UIChunkMapper(session.id);
  // A session that waited for a person: what is still pending (the run may end at once,
  // still awaiting it), and what was decided since its last tick (the page drops its buttons).
  const { state } = session;
  for (const [id, record] of Object.entries(state.guards.checkpoints.records)) {
    const latest = state.guards.checkpoints.ledger.findLast((entry) => entry.checkpoint === id);
    const decidedSinceLastTick =
      (latest?.kind === 'approved' || latest?.kind === 'rejected') && latest.tick === state.tick;
    if (record.state === 'pending' || decidedSinceLastTick) {
      mapper.seedPending(id, {
        tick: state.tick,
        id,
        ...(record.cause !== undefined ? { cause: record.cause } : {}),
        ...(record.reason !== undefined ? { reason: record.reason } : {}),
      });
    }
  }
  mapper.seedDenied(
    state.guards.approvals.calls.filter((r) => r.state === 'denied').map((r) => r.id),
  );
  const decidedWhileWaiting = mapper.decidedSince(state);
  let unsubscribe: (() => void) | undefined;
  return new ReadableStream<AgateUIMessageChunk>({
    start: (controller) => {
      // After the reader cancelled, the run still ends (aborted) but nothing may be enqueued.
      const send = (chunk: AgateUIMessageChunk) => {
        if (!cancel.signal.aborted) controller.enqueue(chunk);
      };
      send({ type: 'start', ...(messageId !== undefined ? { messageId } : {}) });
      for (const chunk of decidedWhileWaiting) send(chunk);
      unsubscribe = session.subscribe(
        (event) => {
          // A sub-agent's events (with a path) are not this chat's message.
          if (event.path !== undefined && event.path.length > 0) return;
          // A decision taken while the session waited is applied by the run, without an event.
          if (event.type !== 'model:delta')
            for (const chunk of mapper.decidedSince(session.state)) send(chunk);
          for (const chunk of mapper.map(event)) send(chunk);
        },
        { types: STREAMED },
      );
      const runSignal = signal ? AbortSignal.any([signal, cancel.signal]) : cancel.signal;
      void (async () => {
        try {
          const result = await session.run({ ...options, signal: runSignal });
          await onFinish?.(result);
          // useChat shows a failed run as its error state; the status part above says why too.
          if (result.status === 'error')
            send({ type: 'error', errorText: result.reason ?? 'The run failed.' });
          send({ type: 'finish', finishReason: finishReasonOf(result) });
        } catch (error) {
          send({ type: 'error', errorText: messageOf(error) });
        } finally {
          unsubscribe?.();
          if (!cancel.signal.aborted) controller.close();
        }
      })();
    },
    cancel: () => {
      unsubscribe?.();
      cancel.abort(new Error('The UI message stream was cancelled by its reader.'));
    },
  });
}

/** The AI SDK's finish reason for how the run ended. */
function finishReasonOf(
  result: RunResult,
): 'stop' | 'length' | 'content-filter' | 'error' | 'other' {
  switch (result.status) {
    case 'completed':
      return 'stop';
    case 'output-limit':
      return 'length';
    case 'content-filter':
      return 'content-filter';
    case 'error':
      return 'error';
    default:
      return 'other';
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
