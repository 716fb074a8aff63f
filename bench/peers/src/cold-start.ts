import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importTime } from '../../src/cold-start.js';
import { installDemo } from '../../src/installed-cli.js';
import { type Summary, summarize } from '../../src/stats.js';
import { SIDE_IDS, type SideId } from './side.js';

/** This package's folder: the peers' packages resolve from its node_modules. */
const PEERS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');

/** What each side's code imports (the bench's own files aside): its cold start. */
export const IMPORTS: Record<SideId, readonly string[]> = {
  agate: ['@agate/core'],
  plain: ['ai'],
  langgraph: [
    '@langchain/langgraph/prebuilt',
    '@langchain/core/language_models/chat_models',
    '@langchain/core/tools',
  ],
  langchain: ['langchain', '@langchain/core/language_models/chat_models'],
  openaiAgents: ['@openai/agents'],
  mastra: ['@mastra/core/agent', '@mastra/core/tools'],
};

export interface ColdStartResult {
  reps: number;
  /** Wall ms from spawning `node --input-type=module -e "await import(…)"` to its exit. */
  importMs: Record<SideId, Summary>;
  /** The same importing `node:path` only: Node's own start. */
  nodeMs: Summary;
}

/**
 * Each side's imports in a fresh Node process, `reps` times in a rotating order with Node alone,
 * after one untimed import of each (the OS file cache and Node's compile cache warm). Agate's
 * `@agate/core` is imported from a project where the packed packages are installed (the
 * `dist/` JavaScript a user gets; see bench/src/installed-cli.ts), the others from this
 * package's node_modules, as npm installed them.
 */
export async function measureColdStart(
  reps: number,
  log: (line: string) => void,
): Promise<ColdStartResult> {
  log('  packing and installing @agate/core in a temporary project...');
  const installed = installDemo();
  try {
    const cwd = (id: SideId | 'node') => (id === 'agate' ? installed.dir : PEERS_DIR);
    const names = [...SIDE_IDS, 'node'] as const;
    const imports = (id: (typeof names)[number]) => (id === 'node' ? ['node:path'] : IMPORTS[id]);
    for (const id of names) await importTime(imports(id), cwd(id));
    const times = new Map<(typeof names)[number], number[]>(names.map((id) => [id, []]));
    for (let rep = 0; rep < reps; rep++) {
      const order = names.map((_, i) => names[(i + rep) % names.length]!);
      for (const id of order) times.get(id)!.push(await importTime(imports(id), cwd(id)));
    }
    return {
      reps,
      importMs: Object.fromEntries(SIDE_IDS.map((id) => [id, summarize(times.get(id)!)])) as Record<
        SideId,
        Summary
      >,
      nodeMs: summarize(times.get('node')!),
    };
  } finally {
    installed.remove();
  }
}
