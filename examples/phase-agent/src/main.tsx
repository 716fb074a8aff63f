import { rm } from 'node:fs/promises';
import type { AgateEvent } from '@agate/core';
import { createRepo, runShellAgent } from './shell-agent.js';
import { runWeakModel } from './weak-model.js';

const write = (text: string) => process.stdout.write(text);
const print = (e: AgateEvent) => {
  if (e.type === 'phase:warning') write(`  [tick ${e.tick}] ${e.text.split('\n')[0]}\n`);
  if (e.type === 'exit:blocked')
    write(`  [tick ${e.tick}] finish refused: ${e.reasons.join(' | ')}\n`);
};

/** `pnpm start`: offline, on scripted models. */
async function main(): Promise<number> {
  write('A weak model that follows the last instruction it was given:\n');
  for (const mode of ['none', 'warn', 'block'] as const) {
    write(`\nphase gates: ${mode}\n`);
    const { result } = await runWeakModel(mode, print);
    write(
      `  → ${result.status} after ${result.ticks} ticks; ready: ${result.phase?.readiness ?? 'not measured'}\n`,
    );
  }
  write('\nA bash-only agent in block mode, on a real temporary repository:\n');
  let ok = true;
  for (const sloppy of [false, true]) {
    const repo = await createRepo();
    try {
      write(
        `\n${sloppy ? 'edits once more after its test' : 'tests, then deletes its reproduce script'}\n`,
      );
      const result = await runShellAgent(repo, sloppy, print);
      write(
        `  → ${result.status} after ${result.ticks} ticks; ready: ${result.phase?.readiness}\n`,
      );
      ok &&= result.status === 'completed';
    } finally {
      await rm(repo, { recursive: true, force: true });
    }
  }
  return ok ? 0 : 1;
}

process.exitCode = await main();
