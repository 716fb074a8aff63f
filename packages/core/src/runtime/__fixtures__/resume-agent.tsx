import { type ScriptedModel, type ScriptedReply, scriptedModel } from '@agate/testing';
import { z } from 'zod';
import { User } from '../../components/message.js';
import { System } from '../../components/text.js';
import { Timeline } from '../../components/timeline.js';
import { Tool } from '../../components/tool.js';
import { ContinueGate } from '../../families/continue-gate/continue-gate.js';
import type { ContinueGateProps } from '../../families/continue-gate/continue-gate-props.js';

/**
 * A deterministic agent for resume tests (in one process and across processes). It writes
 * notes 1..3, then repeats note 3 twice (rework), which makes the ContinueGate pause it before
 * tick 6; resumed, it writes notes 6..8 and finishes on tick 9.
 */
export const PAUSE_AFTER_TICK = 5;
export const FINAL_TICK = 9;

export function ResumeAgent({ gate }: { gate?: ContinueGateProps } = {}) {
  return (
    <>
      <System>You write numbered notes, one per step.</System>
      <User>Write the notes, then say you are done.</User>
      <Timeline />
      <Tool
        name="write_note"
        description="Write note number n"
        input={z.object({ n: z.number() })}
        execute={({ n }) => `wrote note ${n}`}
      />
      <ContinueGate cooldownMs={0} {...gate} />
    </>
  );
}

/**
 * The reply depends only on the prompt (the tick is one more than the assistant turns in it),
 * so a fresh model in another process continues from wherever the session is. Tool call ids
 * and usage are fixed, so two runs produce identical timelines.
 */
export function resumeModel(): ScriptedModel {
  return scriptedModel(
    [(call) => replyForTick(call.options.prompt.filter((m) => m.role === 'assistant').length + 1)],
    { whenExhausted: 'repeat-last' },
  );
}

export function replyForTick(tick: number): ScriptedReply {
  const usage = { inputTokens: 100, outputTokens: 10 };
  if (tick >= FINAL_TICK) return { text: 'All notes written.', usage };
  // Ticks 4 and 5 redo note 3: two repeats in five steps is a rework ratio of 0.4 > 0.3.
  const n = tick === 4 || tick === 5 ? 3 : tick;
  return {
    toolCalls: [{ toolName: 'write_note', input: { n }, toolCallId: `call-${tick}` }],
    usage,
  };
}
