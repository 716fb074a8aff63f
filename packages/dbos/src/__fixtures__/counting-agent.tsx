import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { System, Timeline, Tool, User } from '@agate/core';
import { scriptedModel } from '@agate/testing';
import { z } from 'zod';
import type { DurableAgents } from '../index.js';

/** Tool calls one run makes (one per tick) before its final answer. */
export const CALLS_PER_RUN = 5;

/**
 * A scripted agent for the worker tests. Its model answers from the request alone (how many tool
 * results the timeline holds), so a run replayed in another process gets the same answers; every
 * real call is logged to `model.log`. The tool appends its call id to `calls.log`, and start/end
 * lines with the process id to `spans.log` (to check no run executes in two processes at once).
 */
export function countingAgents(logDir: string, delayMs = 40): DurableAgents {
  const model = scriptedModel(
    [
      ({ options }) => {
        const user = options.prompt.find((m) => m.role === 'user');
        const text = user?.content.map((p) => (p.type === 'text' ? p.text : '')).join('') ?? '';
        const key = /run ([\w-]+)/.exec(text)?.[1] ?? 'unknown';
        const done = options.prompt
          .filter((m) => m.role === 'tool')
          .reduce((n, m) => n + m.content.filter((p) => p.type === 'tool-result').length, 0);
        appendFileSync(join(logDir, 'model.log'), `${key} ${done} ${process.pid}\n`);
        if (done >= CALLS_PER_RUN) return { text: `All ${done} calls made.`, delayMs };
        return {
          toolCalls: [
            { toolName: 'append', toolCallId: `${key}-c${done + 1}`, input: { n: done + 1 } },
          ],
          delayMs,
        };
      },
    ],
    { whenExhausted: 'repeat-last' },
  );
  return {
    counting: {
      element: (input: { run: string }) => (
        <CountingAgent run={input.run} logDir={logDir} delayMs={delayMs} />
      ),
      options: { model, maxTicks: 20 },
    },
  };
}

function CountingAgent({ run, logDir, delayMs }: { run: string; logDir: string; delayMs: number }) {
  return (
    <>
      <System>Call the append tool until it has been called {CALLS_PER_RUN} times.</System>
      <User>This is run {run}.</User>
      <Timeline />
      <Tool
        name="append"
        description="Appends the call id to a file."
        input={z.object({ n: z.number() })}
        execute={async ({ n }, { toolCallId, abortSignal }) => {
          const spans = join(logDir, 'spans.log');
          appendFileSync(spans, `start ${toolCallId} ${process.pid} ${Date.now()}\n`);
          await new Promise((resolve) => setTimeout(resolve, delayMs / 2));
          abortSignal.throwIfAborted();
          appendFileSync(join(logDir, 'calls.log'), `${toolCallId}\n`);
          appendFileSync(spans, `end ${toolCallId} ${process.pid} ${Date.now()}\n`);
          return `appended ${n}`;
        }}
      />
    </>
  );
}
