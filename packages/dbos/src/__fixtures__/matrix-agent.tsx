import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { Checkpoint, System, Timeline, Tool, User } from '@agate/core';
import { scriptedModel } from '@agate/testing';
import { z } from 'zod';
import type { DurableAgent } from '../index.js';

/**
 * The kill matrix's agent: every kind of step a durable run has. Tick 1 calls `work`; tick 2
 * submits checkpoint T-1 (the run waits for its decision); tick 3 calls `drop`, which is held
 * for a person's approval (the run waits again); the approved call runs, and tick 4 answers.
 *
 * Its model answers from the request alone (which results the timeline holds), so a run
 * replayed in another process gets the same answers. Each real model call appends
 * `<session> <results> <pid>` to `model.log`; each real tool execution appends
 * `<callId> <pid>` to `tools.log`.
 */
export function matrixAgent(logDir: string): DurableAgent<{ run: string }> {
  const model = scriptedModel(
    [
      ({ options }) => {
        const user = options.prompt.find((m) => m.role === 'user');
        const text = user?.content.map((p) => (p.type === 'text' ? p.text : '')).join('') ?? '';
        const run = /run ([\w-]+)/.exec(text)?.[1] ?? 'unknown';
        const results = options.prompt
          .filter((m) => m.role === 'tool')
          .flatMap((m) => m.content)
          .filter((p) => p.type === 'tool-result')
          .map((p) => p.toolName);
        appendFileSync(join(logDir, 'model.log'), `${run} ${results.length} ${process.pid}\n`);
        if (results.includes('drop')) return 'All done.';
        if (results.includes('submit_checkpoint')) {
          return {
            toolCalls: [{ toolName: 'drop', toolCallId: `${run}-drop`, input: { table: 'logs' } }],
          };
        }
        if (results.includes('work')) {
          return {
            toolCalls: [
              {
                toolName: 'submit_checkpoint',
                toolCallId: `${run}-submit`,
                input: { id: 'T-1', summary: 'The work is done.' },
              },
            ],
          };
        }
        return { toolCalls: [{ toolName: 'work', toolCallId: `${run}-work`, input: { n: 1 } }] };
      },
    ],
    { whenExhausted: 'repeat-last' },
  );
  const executed = (toolCallId: string) =>
    appendFileSync(join(logDir, 'tools.log'), `${toolCallId} ${process.pid}\n`);
  return {
    element: ({ run }) => (
      <>
        <System>Do the work, submit it for review, then drop the logs table.</System>
        <User>This is run {run}.</User>
        <Timeline />
        <Tool
          name="work"
          description="Does the work."
          input={z.object({ n: z.number() })}
          execute={({ n }, { toolCallId }) => {
            executed(toolCallId);
            return `worked ${n}`;
          }}
        />
        <Tool
          name="drop"
          description="Drops a table."
          input={z.object({ table: z.string() })}
          needsApproval
          execute={({ table }, { toolCallId }) => {
            executed(toolCallId);
            return `dropped ${table}`;
          }}
        />
        <Checkpoint id="T-1" task="Do the work." budget={6} />
      </>
    ),
    options: { model, maxTicks: 12 },
  };
}
