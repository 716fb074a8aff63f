import type { InferUIMessageChunk } from 'ai';
import type { JsonValue } from '../ground/json.js';
import type { AgateEvent } from '../runtime/events.js';
import type { SessionState } from '../state/session-state.js';
import type { AgateDataTypes, AgateUIMessage } from './data-parts.js';

/**
 * One chunk of the AI SDK UI message stream `toUIMessageStream` writes, with Agate's `data-
 * agate-*` parts.
 */
export type AgateUIMessageChunk = InferUIMessageChunk<AgateUIMessage>;

type AgateDataTypesCheckpoint = AgateDataTypes['agate-checkpoint'];

type Open = { kind: 'text' | 'reasoning'; id: string };

type EventOf<T extends AgateEvent['type']> = Extract<AgateEvent, { type: T }>;
type ToolEventType = 'tool:call' | 'tool:result' | 'tool:held' | 'tool:refused';
type CheckpointEventType =
  | 'checkpoint:submitted'
  | 'checkpoint:pending'
  | 'checkpoint:approved'
  | 'checkpoint:rejected';

/**
 * Turns a run's events into UI message chunks, in order: one step per tick, text and reasoning
 * deltas as parts that open and close, tool input and output parts for every call, and Agate's
 * `data-agate-*` parts. Pure bookkeeping (no I/O): `toUIMessageStream` feeds it the events.
 */
export class UIChunkMapper {
  private inStep = false;
  private open: Open | undefined;
  /** Whether any delta arrived this tick (a reply without deltas still becomes a text part). */
  private streamed = false;
  private parts = 0;
  private readonly summaries = new Map<string, string>();
  private readonly pending = new Map<string, AgateDataTypesCheckpoint>();
  /** Held tool calls a person denied before this run: their answer is `tool-output-denied`. */
  private readonly denied = new Set<string>();

  constructor(private readonly sessionId: string) {}

  map(event: AgateEvent): AgateUIMessageChunk[] {
    const out: AgateUIMessageChunk[] = [];
    switch (event.type) {
      case 'tick:start':
        this.closeStep(out);
        out.push({ type: 'start-step' });
        this.inStep = true;
        this.streamed = false;
        break;
      case 'model:delta': {
        if (event.delta === '') break;
        this.streamed = true;
        const id = this.openPart(event.kind, event.tick, out);
        out.push(
          event.kind === 'text'
            ? { type: 'text-delta', id, delta: event.delta }
            : { type: 'reasoning-delta', id, delta: event.delta },
        );
        break;
      }
      case 'model:response':
        if (!this.streamed && event.text !== '') {
          const id = this.openPart('text', event.tick, out);
          out.push({ type: 'text-delta', id, delta: event.text });
        }
        this.closePart(out);
        break;
      case 'tool:call':
      case 'tool:result':
      case 'tool:held':
      case 'tool:refused':
        this.mapTool(event, out);
        break;
      case 'tick:end':
        this.closeStep(out);
        break;
      case 'exit:blocked':
        out.push({
          type: 'data-agate-gate',
          id: `gate-exit-${event.tick}`,
          data: {
            tick: event.tick,
            refused: 'exit',
            gates: event.gates,
            reasons: event.reasons,
            final: event.final,
          },
        });
        break;
      case 'checkpoint:submitted':
      case 'checkpoint:pending':
      case 'checkpoint:approved':
      case 'checkpoint:rejected':
        this.mapCheckpoint(event, out);
        break;
      case 'run:end':
        this.mapRunEnd(event, out);
        break;
      default:
        break;
    }
    return out;
  }

  private mapTool(event: EventOf<ToolEventType>, out: AgateUIMessageChunk[]): void {
    switch (event.type) {
      case 'tool:call':
        this.closePart(out);
        out.push({
          type: 'tool-input-available',
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          input: event.input,
        });
        break;
      case 'tool:result':
        if (this.denied.delete(event.toolCallId)) {
          out.push({ type: 'tool-output-denied', toolCallId: event.toolCallId });
          break;
        }
        out.push(
          event.isError
            ? {
                type: 'tool-output-error',
                toolCallId: event.toolCallId,
                errorText: errorText(event.output),
              }
            : { type: 'tool-output-available', toolCallId: event.toolCallId, output: event.output },
        );
        break;
      case 'tool:held':
        // The AI SDK's own approval request: useChat shows the part as `approval-requested`
        // and its `addToolApprovalResponse` answers it (openChatSession reads the answer).
        out.push({
          type: 'tool-approval-request',
          approvalId: event.toolCallId,
          toolCallId: event.toolCallId,
          reason: event.reason,
        });
        break;
      case 'tool:refused':
        out.push({
          type: 'tool-output-error',
          toolCallId: event.toolCallId,
          errorText: event.message,
        });
        out.push({
          type: 'data-agate-gate',
          id: `gate-${event.toolCallId}`,
          data: {
            tick: event.tick,
            refused: 'tool',
            gates: [event.by],
            reasons: [event.message],
            final: false,
            toolCallId: event.toolCallId,
            toolName: event.toolName,
          },
        });
        break;
    }
  }

  private mapCheckpoint(event: EventOf<CheckpointEventType>, out: AgateUIMessageChunk[]): void {
    switch (event.type) {
      case 'checkpoint:submitted':
        this.summaries.set(event.id, event.summary);
        out.push(
          this.checkpoint({
            tick: event.tick,
            id: event.id,
            state: 'submitted',
            summary: event.summary,
          }),
        );
        break;
      case 'checkpoint:pending': {
        const data: AgateDataTypesCheckpoint = {
          tick: event.tick,
          id: event.id,
          state: 'pending',
          cause: event.cause,
          reason: event.reason,
          ...this.summaryOf(event.id),
        };
        this.pending.set(event.id, data);
        out.push(this.checkpoint(data));
        break;
      }
      case 'checkpoint:approved':
        this.pending.delete(event.id);
        out.push(
          this.checkpoint({
            tick: event.tick,
            id: event.id,
            state: 'approved',
            by: event.by,
            ...(event.note !== undefined ? { note: event.note } : {}),
          }),
        );
        break;
      case 'checkpoint:rejected':
        this.pending.delete(event.id);
        out.push(
          this.checkpoint({
            tick: event.tick,
            id: event.id,
            state: 'rejected',
            by: event.by,
            feedback: event.feedback,
          }),
        );
        break;
    }
  }

  private mapRunEnd(event: EventOf<'run:end'>, out: AgateUIMessageChunk[]): void {
    this.closeStep(out);
    if (event.status === 'awaiting-approval') {
      for (const pending of this.pending.values()) {
        out.push({
          type: 'data-agate-approval',
          id: `approval-${pending.id}`,
          data: {
            kind: 'checkpoint',
            sessionId: this.sessionId,
            checkpointId: pending.id,
            ...(pending.cause !== undefined ? { cause: pending.cause } : {}),
            ...(pending.reason !== undefined ? { reason: pending.reason } : {}),
            ...(pending.summary !== undefined ? { summary: pending.summary } : {}),
          },
        });
      }
    }
    out.push({
      type: 'data-agate-status',
      id: 'status',
      data: {
        status: event.status,
        ...(event.reason !== undefined ? { reason: event.reason } : {}),
        ticks: event.ticks,
      },
    });
  }

  /** Held tool calls denied before the run began (the run answers them first). */
  seedDenied(ids: Iterable<string>): void {
    for (const id of ids) this.denied.add(id);
  }

  /** Checkpoints still pending when the run began (a resumed session awaiting approval). */
  seedPending(id: string, data: Omit<AgateDataTypesCheckpoint, 'state'>): void {
    this.pending.set(id, { ...data, state: 'pending' });
  }

  /**
   * Checkpoints that were pending when the stream began and that a person decided meanwhile
   * (`approveCheckpoint` on the store): the run takes such a decision without an event.
   */
  decidedSince(state: SessionState): AgateUIMessageChunk[] {
    const out: AgateUIMessageChunk[] = [];
    for (const [id] of this.pending) {
      if (state.guards.checkpoints.records[id]?.state === 'pending') continue;
      this.pending.delete(id);
      // Only a decision that is the checkpoint's latest entry: an older one is long settled.
      const decision = state.guards.checkpoints.ledger.findLast((entry) => entry.checkpoint === id);
      if (decision?.kind !== 'approved' && decision?.kind !== 'rejected') continue;
      out.push(
        this.checkpoint({
          tick: state.tick,
          id,
          state: decision.kind === 'approved' ? 'approved' : 'rejected',
          by: decision.by,
          ...(decision.note !== undefined ? { note: decision.note } : {}),
          ...(decision.feedback !== undefined ? { feedback: decision.feedback } : {}),
        }),
      );
    }
    return out;
  }

  private summaryOf(id: string): { summary?: string } {
    const summary = this.summaries.get(id);
    return summary !== undefined ? { summary } : {};
  }

  private checkpoint(data: AgateDataTypesCheckpoint): AgateUIMessageChunk {
    return { type: 'data-agate-checkpoint', id: `checkpoint-${data.id}`, data };
  }

  private openPart(kind: Open['kind'], tick: number, out: AgateUIMessageChunk[]): string {
    if (this.open?.kind === kind) return this.open.id;
    this.closePart(out);
    const id = `${kind}-${tick}-${++this.parts}`;
    this.open = { kind, id };
    out.push(kind === 'text' ? { type: 'text-start', id } : { type: 'reasoning-start', id });
    return id;
  }

  private closePart(out: AgateUIMessageChunk[]): void {
    if (this.open === undefined) return;
    const { kind, id } = this.open;
    out.push(kind === 'text' ? { type: 'text-end', id } : { type: 'reasoning-end', id });
    this.open = undefined;
  }

  private closeStep(out: AgateUIMessageChunk[]): void {
    this.closePart(out);
    if (!this.inStep) return;
    out.push({ type: 'finish-step' });
    this.inStep = false;
  }
}

/** A tool error's output as the text a tool-output-error part shows. */
function errorText(output: JsonValue): string {
  if (typeof output === 'string') return output;
  if (typeof output === 'object' && output !== null && !Array.isArray(output)) {
    const message = output.error ?? output.message;
    if (typeof message === 'string') return message;
  }
  return JSON.stringify(output);
}
