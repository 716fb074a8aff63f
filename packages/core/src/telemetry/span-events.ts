import type { Attributes } from '@opentelemetry/api';
import type { AgateEvent } from '../runtime/events.js';
import type { DecisionRecording } from './decision-events.js';

/** A fact recorded as an event on the span it belongs to (not a span of its own). */
export interface SpanEvent {
  name: string;
  attributes: Attributes;
  /** `tool`: on the open tool call (the call that caused it), else the tick; `tick`: on the tick. */
  on: 'tool' | 'tick';
}

/**
 * Events that are facts about a span rather than guard decisions: the todo list a `todo_write`
 * call wrote and the step a `complete_step` call signed off (outcomes of that tool call, whose
 * refusals and errors its span already carries), and the pruning of the request to the context
 * budget (a measurement of the tick, repeated every tick once the budget is reached). Todo and
 * step text is the model's: recorded only with `recordOutputs`.
 */
export function spanEvent(event: AgateEvent, record: DecisionRecording): SpanEvent | undefined {
  switch (event.type) {
    case 'todos:changed': {
      const count = (status: string) => event.todos.filter((t) => t.status === status).length;
      return {
        name: 'agate.todos.changed',
        on: 'tool',
        attributes: {
          'agate.todos.total': event.todos.length,
          'agate.todos.pending': count('pending'),
          'agate.todos.in_progress': count('in_progress'),
          'agate.todos.completed': count('completed'),
        },
      };
    }
    case 'step:completed': {
      const { evidence } = event;
      const kinds = (['command', 'files', 'diff', 'manual'] as const).filter(
        (k) => evidence[k] !== undefined,
      );
      return {
        name: 'agate.step.completed',
        on: 'tool',
        attributes: {
          'agate.todo.step': event.step,
          'agate.todo.evidence.verified': evidence.verified,
          'agate.todo.evidence.kinds': kinds,
          ...(record.outputs ? { 'agate.todo.content': event.content } : {}),
        },
      };
    }
    case 'context:pruned':
      return {
        name: 'agate.context.pruned',
        on: 'tick',
        attributes: {
          'agate.context.max_tokens': event.maxTokens,
          'agate.context.tokens_before': event.tokensBefore,
          'agate.context.tokens_after': event.tokensAfter,
          'agate.context.dropped_messages': event.droppedMessages,
          'agate.context.dropped_elements': event.droppedElements,
          'agate.context.recut': event.recut,
        },
      };
    default:
      return undefined;
  }
}
