import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { runCodingAgent, TASK } from './agent.js';
import { offlineModel } from './offline-model.js';
import { createPrinter, formatResult } from './print.js';
import { createWorkspace } from './workspace.js';

const write = (text: string) => process.stdout.write(text);

/** `pnpm start` runs offline on a scripted model; `-- --host-verified` lets the tests clear the gate. */
async function main(): Promise<number> {
  const hostVerified = process.argv.includes('--host-verified');
  const root = await createWorkspace();
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort(new Error('interrupted (Ctrl-C)')));
  try {
    write(
      `Offline run on a scripted model (${hostVerified ? 'host-verified gate' : 'model-cleared gate'}).\nWorkspace: ${root}\nTask: ${TASK}\n`,
    );
    const result = await runCodingAgent({
      model: offlineModel({ hostVerified }),
      root,
      hostVerified,
      onEvent: createPrinter(write),
      signal: controller.signal,
    });
    write(`\n${formatResult(result)}\n`);
    write(`\n── math.js ──\n${await readFile(join(root, 'math.js'), 'utf8')}`);
    return result.status === 'completed' ? 0 : 1;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

process.exitCode = await main();
