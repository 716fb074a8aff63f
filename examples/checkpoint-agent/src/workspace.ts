import { defineWorkspace } from '@agate/example-kit';

/** A small project the agent extends in two reviewed steps. */
export const SEED_FILES: Readonly<Record<string, string>> = {
  'package.json': `${JSON.stringify({ name: 'greetings', private: true, type: 'module' }, null, 2)}\n`,
  'README.md': '# greetings\n\nA module that greets people.\n',
};

/** The agent's sandbox: a fresh temp directory seeded with `SEED_FILES`. */
export const workspace = defineWorkspace({
  tempPrefix: 'agate-checkpoint-agent-',
  seedFiles: SEED_FILES,
  examplePath: 'greet.js',
});

export const { create: createWorkspace } = workspace;
