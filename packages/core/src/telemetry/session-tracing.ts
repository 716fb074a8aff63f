import type { Attributes, Context, Exception, Span, Tracer } from '@opentelemetry/api';
import { errorMessage } from '../ground/thrown.js';
import type { CompiledContext } from '../renderer/compiled-context.js';
import type { AgateEvent, EventListener } from '../runtime/events.js';
import { type ModelCallOptions, toRequestMessages } from '../runtime/model-call.js';
import type { SessionOptions } from '../runtime/session-options.js';
import type { ToolCallOutcome } from '../runtime/tool-outcome.js';
import { type DecisionEvent, type DecisionRecording, decisionEvent } from './decision-events.js';
import {
  chatResponseAttributes,
  type ServerAddress,
  startChatSpan,
  startExecuteToolSpan,
  startInvokeAgentSpan,
  within,
} from './genai-spans.js';
import { finishReason, inputMessages, outputMessages, systemInstructions } from './messages.js';
import {
  type ModelIdentity,
  modelIdentity,
  requestAttributes,
  serverAddress,
} from './model-attributes.js';
import { loadedOtel, otel, otelRegistered } from './otel-api.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_REQUEST_STREAM,
  ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
} from './semconv.js';
import { spanEvent } from './span-events.js';
import type { TelemetryOptions } from './telemetry-options.js';
import { VERSION } from './version.js';

/** The tracer's instrumentation scope: this package, at its version. */
export const TRACER_NAME = '@agate/core';
export const TRACER_VERSION = VERSION;
/** Guard decisions made between runs (a person clearing a gate), traced with the next run. */
const MAX_PENDING = 32;

type EventOf<T extends AgateEvent['type']> = Extract<AgateEvent, { type: T }>;

/** What tracing reads from its session (a `Session`). */
export interface TracedSession {
  readonly id: string;
  /** The context compiled for the current tick (the request text, when inputs are recorded). */
  readonly context: CompiledContext | undefined;
  subscribe(listener: EventListener): () => void;
}

/** The spans of one run, kept only while its run span records. */
interface OpenRun {
  tracer: Tracer;
  span: Span;
  ctx: Context;
  tick: { span: Span; ctx: Context; number: number } | undefined;
  model: Span | undefined;
  tool: { span: Span; failed: boolean; callId: string } | undefined;
  /** Calls running alongside others (sub-agents), by call id; `tool` is the latest started. */
  tools: Map<string, { span: Span; failed: boolean; callId: string }>;
  /** The ContinueGate's throttle wait: open from `continue:throttled` to the next event. */
  wait: Span | undefined;
  reasoning: string;
  /** When the model call started (`performance.now()`), until its first streamed chunk. */
  awaitingFirstChunk: number | undefined;
}

/**
 * A session's spans, driven by its own events (`invoke_agent` run → `agate.tick` → `chat` model
 * call, `execute_tool` calls; guard decisions as events on the tick) plus the few things events
 * do not carry: the error a tick failed with, a tool's exception, and the request text. Each
 * run asks its tracer once whether its span records; when it does not (no provider registered,
 * or sampled out) the rest of the run costs one branch per event.
 */
export class SessionTracing {
  private run: OpenRun | undefined;
  private inRun = false;
  private pending: Array<{ decision: DecisionEvent; time: number }> = [];
  private identity: ModelIdentity | undefined;
  private server: ServerAddress | undefined | null;
  private readonly telemetry: TelemetryOptions;
  private readonly record: DecisionRecording;
  /**
   * Pending reasons that quote a submit summary (the model's text), by checkpoint id: the run's
   * reason repeats them, so they are left out of `agate.run.reason` unless outputs are recorded.
   */
  private readonly submitReasons = new Map<string, string>();

  constructor(
    private readonly session: TracedSession,
    private readonly options: Readonly<SessionOptions>,
    /** `gen_ai.agent.name` (the `name` option or the root component's name). */
    private readonly agentName: string,
  ) {
    this.telemetry = options.telemetry ?? {};
    this.record = { outputs: this.telemetry.recordOutputs === true };
    if (this.telemetry.enabled !== false) session.subscribe(this.listener);
  }

  /** Whether a run must load the OpenTelemetry API first: it may trace, and it is not loaded. */
  needsOtel(): boolean {
    return loadedOtel() === undefined && this.mayTrace();
  }

  /** Whether a run may trace: tracing on, and a tracer, a parent context or a provider. */
  private mayTrace(): boolean {
    if (this.telemetry.enabled === false) return false;
    const { tracer, parentContext } = this.telemetry;
    return tracer !== undefined || parentContext !== undefined || otelRegistered();
  }

  /**
   * `callModel`, run with the model call's span as the active context (so HTTP instrumentations
   * nest under it). Wraps the function rather than the call to keep the tick loop's code as is.
   */
  model<T>(
    call: (options: ModelCallOptions) => Promise<T>,
  ): (options: ModelCallOptions) => Promise<T> {
    const run = this.run;
    const span = run?.model;
    if (run === undefined || span === undefined) return call;
    return (options) => {
      // With `streaming: 'auto'` whether this call streams is decided per call (a delta
      // subscriber), so the span says what the call actually does, not what the option was.
      const streaming = options.streaming !== false;
      span.setAttribute(ATTR_GEN_AI_REQUEST_STREAM, streaming);
      if (!streaming) run.awaitingFirstChunk = undefined;
      return otel().context.with(otel().trace.setSpan(run.ctx, span), call, undefined, options);
    };
  }

  /** `runToolCall`, run inside the tool call's span; records what `execute` threw. */
  tool<A extends unknown[]>(
    call: (...args: A) => Promise<ToolCallOutcome>,
  ): (...args: A) => Promise<ToolCallOutcome> {
    const run = this.run;
    const open = run?.tool;
    if (run === undefined || open === undefined) return call;
    return async (...args) => {
      const outcome = await otel().context.with(
        within(run.ctx, open.span),
        call,
        undefined,
        ...args,
      );
      if ('error' in outcome) {
        fail(open.span, outcome.error);
        open.failed = true;
      } else if (!outcome.executed) {
        open.span.setAttribute(ATTR_ERROR_TYPE, 'invalid_tool_call');
        // The message may quote the model's arguments: it is output, recorded only when asked.
        open.span.setStatus({
          code: otel().SpanStatusCode.ERROR,
          message: this.telemetry.recordOutputs
            ? String(outcome.result.output)
            : 'Invalid tool call (unknown tool, or arguments that failed validation).',
        });
        open.failed = true;
      }
      return outcome;
    };
  }

  /** The context of a running tool call's span (spans of the call's own work go under it). */
  toolContext(toolCallId: string): Context | undefined {
    const run = this.run;
    const open = run?.tools.get(toolCallId);
    if (run === undefined || open === undefined) return undefined;
    return otel().trace.setSpan(run.tick?.ctx ?? run.ctx, open.span);
  }

  /** The run failed: recorded on the innermost open span (the model call, a tool, the tick). */
  failed(error: Error): void {
    const run = this.run;
    if (run === undefined) return;
    const span = run.model ?? run.tool?.span ?? run.tick?.span ?? run.span;
    fail(span, error);
    if (run.tool !== undefined && span === run.tool.span) run.tool.failed = true;
  }

  private readonly listener = (event: AgateEvent): void => {
    try {
      this.handle(event);
    } catch (error) {
      // A tracer that throws must not end the agent's run; OTel's diagnostics logger reports it.
      loadedOtel()?.diag.error(`@agate/core telemetry: ${errorMessage(error)}`);
    }
  };

  private handle(event: AgateEvent): void {
    // A sub-agent's events (forwarded with their path) are traced by its own session.
    if (event.path !== undefined && event.path.length > 0) return;
    const run = this.run;
    if (run === undefined) {
      if (event.type === 'run:start') this.startRun(event);
      else if (event.type === 'run:end') this.inRun = false;
      else if (!this.inRun) this.keep(event);
      return;
    }
    switch (event.type) {
      case 'model:delta':
        if (run.awaitingFirstChunk !== undefined) {
          const seconds = (performance.now() - run.awaitingFirstChunk) / 1000;
          run.model?.setAttribute(ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK, seconds);
          run.awaitingFirstChunk = undefined;
        }
        if (event.kind === 'reasoning' && this.telemetry.recordOutputs)
          run.reasoning += event.delta;
        return;
      case 'tick:start':
        this.endTick(run, 'continue');
        this.startTick(run, event.tick);
        return;
      case 'model:request':
        this.startModel(run, event);
        return;
      case 'model:response':
        this.endModel(run, event);
        return;
      case 'tool:call':
        this.startTool(run, event);
        return;
      case 'tool:refused': {
        const open = run.tools.get(event.toolCallId);
        if (open === undefined) return;
        open.span.setAttributes({
          [ATTR_ERROR_TYPE]: 'refused',
          'agate.tool.refused_by': event.by,
        });
        open.span.setStatus({ code: otel().SpanStatusCode.ERROR, message: event.message });
        open.failed = true;
        return;
      }
      case 'tool:result':
        this.endTool(run, event);
        return;
      // No case for `tick:end`: a guard may still end the run after a tick whose tools ran (a
      // checkpoint gone pending), so the tick ends at the next `tick:start` or at `run:end`.
      case 'warning':
        (run.tick?.span ?? run.span).addEvent('agate.warning', {
          'agate.warning.code': event.code,
          'agate.warning.message': event.message,
        });
        return;
      case 'timeline:trimmed':
        (run.tick?.span ?? run.span).addEvent('agate.timeline.trimmed', {
          'agate.timeline.dropped': event.dropped,
        });
        return;
      case 'run:end':
        this.endRun(run, event);
        return;
      default:
        break;
    }
    const fact = spanEvent(event, this.record);
    if (fact !== undefined) {
      const on = fact.on === 'tool' ? run.tool?.span : undefined;
      (on ?? run.tick?.span ?? run.span).addEvent(fact.name, fact.attributes);
      return;
    }
    const decision = decisionEvent(event, this.record);
    if (decision === undefined) return;
    this.noteCheckpoint(event);
    this.decision(run, decision);
    if (event.type === 'exit:blocked') this.endTick(run, event.final ? 'blocked' : 'refused');
  }

  private startRun(event: EventOf<'run:start'>): void {
    this.inRun = true;
    const pending = this.pending;
    this.pending = [];
    // No tracer given and no provider registered when the run started: every span would be a
    // no-op, so none is asked for, even when an earlier run of this process loaded the API
    // (runtime/run-session.ts loads it when a run may trace).
    const api = this.mayTrace() ? loadedOtel() : undefined;
    if (api === undefined) return;
    const tracer = this.telemetry.tracer ?? api.trace.getTracer(TRACER_NAME, TRACER_VERSION);
    const parent = this.telemetry.parentContext ?? api.context.active();
    this.identity ??= modelIdentity(this.options.model);
    const span = startInvokeAgentSpan(
      tracer,
      {
        name: this.agentName,
        conversationId: event.sessionId,
        provider: this.identity.provider,
        model: this.identity.model,
        attributes: { 'agate.session.id': event.sessionId, 'agate.run.start_tick': event.tick },
      },
      parent,
    );
    if (!span.isRecording()) return;
    const run: OpenRun = {
      tracer,
      span,
      ctx: within(parent, span),
      tick: undefined,
      model: undefined,
      tool: undefined,
      tools: new Map(),
      wait: undefined,
      reasoning: '',
      awaitingFirstChunk: undefined,
    };
    this.run = run;
    // Decisions made between runs, at the time they were made, on the run they precede.
    for (const { decision, time } of pending)
      span.addEvent(decision.name, decision.attributes, time);
  }

  private endRun(run: OpenRun, event: EventOf<'run:end'>): void {
    run.model?.end();
    for (const open of run.tools.values()) open.span.end();
    run.tools.clear();
    this.endTick(run, event.status);
    const reason = this.withoutSummaries(event.reason);
    // No token usage here: it is on each `chat` span, and backends add those up themselves.
    run.span.setAttributes({
      'agate.run.status': event.status,
      'agate.run.ticks': event.ticks,
      ...(reason !== undefined ? { 'agate.run.reason': reason } : {}),
    });
    if (event.status === 'error') {
      run.span.setStatus({ code: otel().SpanStatusCode.ERROR, message: reason ?? 'error' });
    }
    run.span.end();
    this.run = undefined;
    this.inRun = false;
  }

  private startTick(run: OpenRun, tick: number): void {
    const span = run.tracer.startSpan(
      'agate.tick',
      { attributes: { 'agate.tick.number': tick } },
      run.ctx,
    );
    run.tick = { span, ctx: within(run.ctx, span), number: tick };
  }

  /**
   * A tick ends once its decision is known: `continue` (the next tick started), `refused` (an
   * exit was refused and the loop goes on), or the status the run ended with after this tick.
   */
  private endTick(run: OpenRun, decision: string): void {
    if (run.tick === undefined) return;
    run.tick.span.setAttribute('agate.tick.decision', decision);
    run.tick.span.end();
    run.tick = undefined;
  }

  private startModel(run: OpenRun, event: EventOf<'model:request'>): void {
    const { options } = this;
    this.identity ??= modelIdentity(options.model);
    if (this.server === undefined) this.server = serverAddress(options.model) ?? null;
    const attributes: Attributes = {
      [ATTR_GEN_AI_CONVERSATION_ID]: this.session.id,
      // Set again when the call starts, once 'auto' has decided (see `model`).
      [ATTR_GEN_AI_REQUEST_STREAM]: options.streaming !== false,
      ...requestAttributes(options.modelSettings),
      'agate.request.messages': event.messages,
      'agate.request.tools': event.tools.length,
      'agate.request.ephemeral': event.ephemeral,
    };
    const compiled = this.telemetry.recordInputs ? this.session.context : undefined;
    if (compiled !== undefined) {
      attributes[ATTR_GEN_AI_INPUT_MESSAGES] = inputMessages(toRequestMessages(compiled));
      if (compiled.system !== '') {
        attributes[ATTR_GEN_AI_SYSTEM_INSTRUCTIONS] = systemInstructions(compiled.system);
      }
    }
    run.reasoning = '';
    // Without streaming the text arrives whole at the end: there is no first chunk to time.
    run.awaitingFirstChunk = options.streaming !== false ? performance.now() : undefined;
    run.model = startChatSpan(
      run.tracer,
      {
        provider: this.identity.provider,
        model: this.identity.model,
        ...(this.server !== null ? { server: this.server } : {}),
        attributes,
      },
      run.tick?.ctx ?? run.ctx,
    );
  }

  private endModel(run: OpenRun, event: EventOf<'model:response'>): void {
    const span = run.model;
    if (span === undefined) return;
    span.setAttributes(
      chatResponseAttributes({
        ...(event.responseModel !== undefined ? { model: event.responseModel } : {}),
        ...(event.responseId !== undefined ? { id: event.responseId } : {}),
        finishReasons: [finishReason(event.finishReason)],
        usage: event.usage,
      }),
    );
    if (this.telemetry.recordOutputs) {
      span.setAttribute(
        ATTR_GEN_AI_OUTPUT_MESSAGES,
        outputMessages({ ...event, reasoning: run.reasoning }),
      );
    }
    span.end();
    run.model = undefined;
    run.awaitingFirstChunk = undefined;
  }

  private startTool(run: OpenRun, event: EventOf<'tool:call'>): void {
    const description = this.session.context?.tools.find(
      (t) => t.name === event.toolName,
    )?.description;
    const span = startExecuteToolSpan(
      run.tracer,
      {
        name: event.toolName,
        callId: event.toolCallId,
        ...(description !== undefined ? { description } : {}),
        ...(this.telemetry.recordInputs
          ? { attributes: { [ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: json(event.input) } }
          : {}),
      },
      run.tick?.ctx ?? run.ctx,
    );
    run.tool = { span, failed: false, callId: event.toolCallId };
    run.tools.set(event.toolCallId, run.tool);
  }

  private endTool(run: OpenRun, event: EventOf<'tool:result'>): void {
    const open = run.tools.get(event.toolCallId);
    if (open === undefined) return;
    run.tools.delete(event.toolCallId);
    if (event.isError && !open.failed) {
      open.span.setAttribute(ATTR_ERROR_TYPE, 'tool_error');
      open.span.setStatus({ code: otel().SpanStatusCode.ERROR });
    }
    if (!event.isError && this.telemetry.recordOutputs) {
      open.span.setAttribute(ATTR_GEN_AI_TOOL_CALL_RESULT, json(event.output));
    }
    open.span.end();
    if (run.tool === open) run.tool = undefined;
  }

  /**
   * A guard decision, as an event on the tick it was made in (else the run). One made inside a
   * tool call (a gate cleared by `set_knob`, a checkpoint submitted) names that call's id.
   */
  private decision(run: OpenRun, decision: DecisionEvent): void {
    const attributes =
      run.tool !== undefined
        ? { ...decision.attributes, [ATTR_GEN_AI_TOOL_CALL_ID]: run.tool.callId }
        : decision.attributes;
    (run.tick?.span ?? run.span).addEvent(decision.name, attributes);
  }

  /** Only for decisions traced (in a recording run, or kept for the next one): no cost otherwise. */
  private noteCheckpoint(event: AgateEvent): void {
    if (this.record.outputs) return;
    if (event.type === 'checkpoint:pending' && event.cause === 'submit') {
      this.submitReasons.set(event.id, event.reason);
    } else if (event.type === 'checkpoint:approved' || event.type === 'checkpoint:rejected') {
      this.submitReasons.delete(event.id);
    }
  }

  private withoutSummaries(reason: string | undefined): string | undefined {
    if (reason === undefined) return undefined;
    let out = reason;
    for (const quoted of this.submitReasons.values()) {
      out = out.replaceAll(quoted, 'submitted: [summary not recorded]');
    }
    return out;
  }

  /** A guard decision outside any run; traced under the next run that records. */
  private keep(event: AgateEvent): void {
    const decision = decisionEvent(event, this.record);
    if (decision === undefined) return;
    this.noteCheckpoint(event);
    this.pending.push({ decision, time: Date.now() });
    if (this.pending.length > MAX_PENDING) this.pending.shift();
  }
}

function fail(span: Span, error: unknown): void {
  const exception: Exception =
    error instanceof Error ? error : { name: 'Error', message: errorMessage(error) };
  span.recordException(exception);
  span.setAttribute(ATTR_ERROR_TYPE, error instanceof Error ? error.name : 'Error');
  span.setStatus({ code: otel().SpanStatusCode.ERROR, message: errorMessage(error) });
}

/** Tool arguments and results as JSON text (the conventions allow a string for structured values). */
function json(value: unknown): string {
  try {
    return JSON.stringify(value ?? null);
  } catch (error) {
    return `[unserializable: ${errorMessage(error)}]`;
  }
}
