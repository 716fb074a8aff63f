import type { UIMessage } from 'ai';
import type { CheckpointCause } from '../approvals/ledger-types.js';
import type { RunStatus } from '../state/session-state.js';

/**
 * Agate's own parts of a UI message stream (`data-agate-*`), besides the AI SDK's text,
 * reasoning, tool and step parts. Each has a stable `id` so a later chunk updates it in place.
 */
export type AgateDataTypes = {
  /** A refusal: the run tried to end (or call a tool) and gates said no, with why. */
  'agate-gate': {
    tick: number;
    /** `exit` when the model tried to finish; `tool` when a guard refused one tool call. */
    refused: 'exit' | 'tool';
    gates: string[];
    reasons: string[];
    /** True when this refusal ended the run (`blocked`); false while the loop goes on. */
    final: boolean;
    toolCallId?: string;
    toolName?: string;
  };
  /** A `<Checkpoint>`'s latest state in this run: submitted, pending, approved or rejected. */
  'agate-checkpoint': {
    tick: number;
    id: string;
    state: 'submitted' | 'pending' | 'approved' | 'rejected';
    cause?: CheckpointCause;
    /** What the model said it did (its `submit_checkpoint` summary). */
    summary?: string;
    reason?: string;
    by?: string;
    note?: string;
    feedback?: string;
  };
  /** The run ended waiting for a person: what awaits a decision, to show approve / reject. */
  'agate-approval': {
    kind: 'checkpoint';
    sessionId: string;
    checkpointId: string;
    cause?: CheckpointCause;
    reason?: string;
    summary?: string;
  };
  /** How the run ended. */
  'agate-status': {
    status: RunStatus;
    reason?: string;
    ticks: number;
  };
};

/** A UI message carrying Agate's data parts: `useChat<AgateUIMessage>()` types them. */
export type AgateUIMessage = UIMessage<unknown, AgateDataTypes>;
