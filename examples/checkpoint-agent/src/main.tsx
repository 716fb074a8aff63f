import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type AgateEvent, createFileStore } from '@agate/core';
import { createPrinter, formatResult } from '@agate/example-kit';
import { approver, runWithReviews } from './flow.js';
import { offlineModel } from './offline-model.js';
import { createWorkspace } from './workspace.js';

const write = (text: string) => process.stdout.write(text);

/** Checkpoint events the shared printer does not show. */
function printCheckpoints(event: AgateEvent): void {
  if (event.type === 'checkpoint:pending') write(`  ⏸ checkpoint ${event.id}: ${event.reason}\n`);
  if (event.type === 'tool:refused') write(`  ⛔ ${event.toolName} refused by ${event.by}\n`);
}

/** `pnpm start`: two tasks, each held at its checkpoint until the (scripted) reviewer approves. */
async function main(): Promise<number> {
  const root = await createWorkspace();
  const store = createFileStore(join(root, '.agate/sessions'));
  const sessionId = 'greetings';
  const print = createPrinter(write);
  try {
    write(`Offline run on a scripted model.\nWorkspace: ${root}\n`);
    const results = await runWithReviews({
      model: offlineModel(),
      root,
      store,
      sessionId,
      onEvent: (event) => {
        print(event);
        printCheckpoints(event);
      },
      review: async (checkpoint, result) => {
        write(`\n${formatResult(result)}\n`);
        write(`\n▶ agate approve ${sessionId} ${checkpoint} --by reviewer\n`);
        await approver(store, sessionId)(checkpoint);
      },
    });
    const last = results.at(-1)!;
    write(`\n${formatResult(last)}\n`);
    write(
      `\nLedger:\n${last.checkpointLedger
        .map((e) => `  ${e.seq}. ${e.kind} ${e.checkpoint} by ${e.by} (tick ${e.tick})`)
        .join('\n')}\n`,
    );
    write(`\n── greet.test.js ──\n${await readFile(join(root, 'greet.test.js'), 'utf8')}`);
    return last.status === 'completed' ? 0 : 1;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

process.exitCode = await main();
