import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { System, Timeline, Tool, User } from '@agate/core';
import type { DurableAgents } from '@agate/dbos';
import { scriptedModel } from '@agate/testing';
import { z } from 'zod';

/** Where the tool records what it did (the demo prints it at the end). */
export const LEDGER = process.env.DURABLE_DEMO_LEDGER ?? 'durable-demo-ledger.txt';
export const STEPS = 6;

/**
 * Offline model: it answers from the request alone (how many steps are done), so a run resumed
 * in another process gets the same answers. Each call takes a moment, so a kill lands mid-run.
 */
const model = scriptedModel(
  [
    ({ options }) => {
      const done = options.prompt.filter((m) => m.role === 'tool').length;
      return done >= STEPS
        ? { text: `All ${STEPS} invoices are booked.`, delayMs: 300 }
        : {
            // A provider gives every call a unique id; a scripted model's ids restart in every
            // process, so this one names its calls itself.
            toolCalls: [
              {
                toolName: 'book_invoice',
                toolCallId: `invoice-call-${done + 1}`,
                input: { number: done + 1 },
              },
            ],
            delayMs: 300,
          };
    },
  ],
  { whenExhausted: 'repeat-last' },
);

function Bookkeeper() {
  return (
    <>
      <System>Book the invoices one at a time, then say you are done.</System>
      <User>Book invoices 1 to {STEPS}.</User>
      <Timeline />
      <Tool
        name="book_invoice"
        description="Book one invoice in the ledger."
        input={z.object({ number: z.number() })}
        execute={({ number }, { toolCallId }) => {
          // Idempotent by call id: a call repeated after a crash books nothing twice.
          const ledger = existsSync(LEDGER) ? readFileSync(LEDGER, 'utf8') : '';
          if (ledger.includes(`${toolCallId} `)) return `invoice ${number} was already booked`;
          appendFileSync(LEDGER, `${toolCallId} invoice ${number} (process ${process.pid})\n`);
          return `booked invoice ${number}`;
        }}
      />
    </>
  );
}

export const agents: DurableAgents = {
  bookkeeper: { element: () => <Bookkeeper />, options: { model, maxTicks: 20 } },
};
