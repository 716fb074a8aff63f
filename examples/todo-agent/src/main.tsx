import { rm } from 'node:fs/promises';
import { runTodoAgent, TASK } from './agent.js';
import { offlineModel } from './offline-model.js';
import { createPrinter, formatResult } from './print.js';
import { createWorkspace } from './workspace.js';

const write = (text: string) => process.stdout.write(text);

/** `pnpm start` runs offline on a scripted model against a real `node --test` suite. */
async function main(): Promise<number> {
  const root = await createWorkspace();
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort(new Error('interrupted (Ctrl-C)')));
  try {
    write(`Offline run on a scripted model.\nWorkspace: ${root}\nTask: ${TASK}\n`);
    const result = await runTodoAgent({
      model: offlineModel(),
      root,
      onEvent: createPrinter(write),
      signal: controller.signal,
    });
    write(`\n${formatResult(result)}\n`);
    return result.status === 'completed' ? 0 : 1;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

process.exitCode = await main();
