import { type ScriptedModel, type ScriptedReply, scriptedModel } from '@agate/testing';
import { z } from 'zod';
import { User } from '../../../components/message.js';
import { System } from '../../../components/text.js';
import { Timeline } from '../../../components/timeline.js';
import { Tool } from '../../../components/tool.js';
import { Checkpoint } from '../checkpoint.js';

/**
 * A deterministic checkpointed agent for the cross-process test: it writes note 1, submits
 * T-1 and (in the same response) tries note 2, which is refused; once approved it writes
 * note 3 and finishes.
 */
export function CheckpointAgent() {
  return (
    <>
      <System>You write numbered notes and submit each checkpoint when its task is done.</System>
      <User>Write the notes.</User>
      <Timeline />
      <Tool
        name="write_note"
        description="Write note number n"
        input={z.object({ n: z.number() })}
        execute={({ n }) => `wrote note ${n}`}
      />
      <Checkpoint id="T-1" task="Write note 1" />
    </>
  );
}

/** The reply depends only on the tick (assistant turns in the prompt + 1), so any process can continue. */
export function checkpointModel(): ScriptedModel {
  return scriptedModel(
    [(call) => replyForTick(call.options.prompt.filter((m) => m.role === 'assistant').length + 1)],
    { whenExhausted: 'repeat-last' },
  );
}

function replyForTick(tick: number): ScriptedReply {
  const usage = { inputTokens: 100, outputTokens: 10 };
  const write = (n: number) => ({ toolName: 'write_note', input: { n }, toolCallId: `note-${n}` });
  if (tick === 1) return { toolCalls: [write(1)], usage };
  if (tick === 2) {
    const submit = {
      toolName: 'submit_checkpoint',
      input: { id: 'T-1', summary: 'Note 1 is written.' },
      toolCallId: 'submit-1',
    };
    return { toolCalls: [submit, write(2)], usage };
  }
  if (tick === 3) return { toolCalls: [write(3)], usage };
  return { text: 'All notes written.', usage };
}
