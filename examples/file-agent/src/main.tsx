import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createPrinter, formatResult } from '@agate/example-kit';
import { runFileAgent, TASK } from './agent.js';
import { ProviderConfigError, selectProvider } from './provider.js';
import { createWorkspace } from './workspace.js';

const write = (text: string) => process.stdout.write(text);

async function main(): Promise<number> {
  let provider: ReturnType<typeof selectProvider>;
  try {
    provider = selectProvider(process.env);
  } catch (error) {
    if (error instanceof ProviderConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
  write(
    provider.kind === 'scripted'
      ? `Running ${provider.description}\n`
      : `Running against ${provider.description}.\n`,
  );

  const root = await createWorkspace();
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort(new Error('interrupted (Ctrl-C)')));
  try {
    write(`Workspace: ${root}\nTask: ${TASK}\n`);
    const result = await runFileAgent({
      model: provider.model,
      root,
      onEvent: createPrinter(write),
      signal: controller.signal,
    });
    write(`\n${formatResult(result, { usage: true })}\n`);
    const summary = await readFile(join(root, 'SUMMARY.md'), 'utf8').catch(() => undefined);
    write(
      summary === undefined ? '\nSUMMARY.md was not written.\n' : `\n── SUMMARY.md ──\n${summary}`,
    );
    return result.status === 'completed' && summary !== undefined ? 0 : 1;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

process.exitCode = await main();
