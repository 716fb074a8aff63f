import { rm } from 'node:fs/promises';
import type { AgateEvent, RunResult } from '@agate/core';
import { runCommandGateAgent } from './agent.js';
import { hastyModel, stubbornModel } from './offline-model.js';
import { createProject } from './project.js';

const write = (text: string) => process.stdout.write(text);

/** One line per thing worth seeing: the agent's commands, the host's test runs, refusals. */
function print(e: AgateEvent): void {
  if (e.type === 'tool:call') write(`  [tick ${e.tick}] bash: ${JSON.stringify(e.input)}\n`);
  if (e.type === 'model:response' && e.text.trim() !== '')
    write(`  [tick ${e.tick}] model: ${e.text.trim()}\n`);
  if (e.type === 'command-gate:ran') {
    const how = e.notRun ?? e.summary ?? `exit code ${e.exitCode}`;
    write(
      `  [tick ${e.tick}] host ran \`${e.command}\`: ${e.passed ? 'passed' : 'failed'} (${how})\n`,
    );
  }
  if (e.type === 'exit:blocked')
    write(`  [tick ${e.tick}] finish refused: ${e.reasons.join(' | ').split('\n')[0]}\n`);
}

async function inProject(run: (repo: string) => Promise<RunResult>): Promise<RunResult> {
  const repo = await createProject();
  try {
    return await run(repo);
  } finally {
    await rm(repo, { recursive: true, force: true });
  }
}

/** `pnpm start`: offline, on scripted models, against a real node --test project. */
async function main(): Promise<number> {
  write('A model that says "done" before it fixes the bug:\n');
  const hasty = await inProject((repo) =>
    runCommandGateAgent({ repo, model: hastyModel(), onEvent: print }),
  );
  write(`  → ${hasty.status} after ${hasty.ticks} ticks; tests: ${hasty.commandGates?.tests}\n`);

  write('\nA model that breaks add() another way and keeps saying "done" (maxBlocks 2):\n');
  const stubborn = await inProject((repo) =>
    runCommandGateAgent({ repo, model: stubbornModel(), maxBlocks: 2, onEvent: print }),
  );
  write(`  → ${stubborn.status}: ${stubborn.reason?.split('\n')[0]}\n`);
  return hasty.status === 'completed' && stubborn.status === 'blocked' ? 0 : 1;
}

process.exitCode = await main();
