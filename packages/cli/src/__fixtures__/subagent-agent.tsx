/**
 * A parent whose reviewer sub-agent stops at a checkpoint, for the CLI's tests: the run ends
 * awaiting approval of `reviewer#call_3 › T-1`. The model answers from each request, so a
 * resumed process (a fresh model) goes on where the stored session is.
 */
import { Checkpoint, SubAgent, System, Timeline, User } from '@agate/core';
import { scriptedModel } from '@agate/testing';
import { z } from 'zod';

function Reviewer(props: { change: string }) {
  return (
    <>
      <System>You are the reviewer sub-agent.</System>
      <User>Review: {props.change}</User>
      <Timeline />
      <Checkpoint id="T-1" task="Submit your review for approval" />
    </>
  );
}

export default function Parent() {
  return (
    <>
      <System>You hand reviews to the reviewer.</System>
      <User>Get the change reviewed.</User>
      <Timeline />
      <SubAgent
        name="reviewer"
        description="Reviews a change"
        input={z.object({ change: z.string() })}
        agent={(input) => <Reviewer change={input.change} />}
      />
    </>
  );
}

const model = scriptedModel(
  [
    (call) => {
      const text = JSON.stringify(call.options.prompt);
      if (text.includes('reviewer sub-agent')) {
        return text.includes('submit_checkpoint')
          ? 'Review approved: the change is fine.'
          : {
              toolCalls: [
                {
                  toolName: 'submit_checkpoint',
                  input: { id: 'T-1', summary: 'The change is fine.' },
                },
              ],
            };
      }
      return text.includes('"toolName":"reviewer"')
        ? 'Parent done: the review came back.'
        : {
            toolCalls: [
              { toolName: 'reviewer', input: { change: 'add() fixed' }, toolCallId: 'call_3' },
            ],
          };
    },
  ],
  { whenExhausted: 'repeat-last', modelId: 'subagent-fixture' },
);

export const options = { model, maxTicks: 6 };
