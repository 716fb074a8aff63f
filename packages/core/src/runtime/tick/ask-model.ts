import type { GuardTick } from '../../guard-seam/guard-family.js';
import { callModelUntilAborted } from '../abort.js';
import { modelStep } from '../durable-steps.js';
import type { ModelTurn } from '../model-call.js';
import type { SessionCore } from '../session-core.js';
import { shouldStream } from '../streaming.js';
import { toolIndexOf } from '../tool-index.js';

/**
 * The tick's model call, after every guard let it happen: one AI SDK call (`generateText`, or
 * `streamText` when someone reads the deltas) with the compiled context, through the durable
 * engine when there is one (`options.steps`), traced, and ended as soon as the run's signal
 * aborts. Emits `model:request` and `model:delta`; the caller emits `model:response` with
 * `modelAnswered` once the turn is in (a function, not an `async` wrapper: the tick awaits the
 * call's own promise).
 */
export function askModel(core: SessionCore, guardTick: GuardTick): Promise<ModelTurn> {
  const { tick: tickNo, context, signal } = guardTick;
  core.emit({
    type: 'model:request',
    tick: tickNo,
    messages: context.messages.length,
    // A copy per event: a listener may keep or change what it is given.
    tools: toolIndexOf(context.tools).names.slice(),
    ephemeral: context.ephemeral.length,
  });
  return modelStep(core.options.steps, tickNo, () =>
    core.tracing.model(callModelUntilAborted)({
      model: core.sdkModel,
      context,
      signal,
      streaming: shouldStream(core.options.streaming, core.events),
      requestForms: core.requestForms,
      ...(core.options.modelSettings ? { settings: core.options.modelSettings } : {}),
      onDelta: (kind, delta) => core.emit({ type: 'model:delta', tick: tickNo, kind, delta }),
    }),
  );
}

/** The model's turn is in: `model:response`. */
export function modelAnswered(core: SessionCore, tickNo: number, turn: ModelTurn): void {
  core.emit({
    type: 'model:response',
    tick: tickNo,
    text: turn.text,
    toolCalls: turn.toolCalls,
    finishReason: turn.finishReason,
    usage: turn.usage,
    ...(turn.responseId !== undefined ? { responseId: turn.responseId } : {}),
    ...(turn.responseModel !== undefined ? { responseModel: turn.responseModel } : {}),
  });
}
