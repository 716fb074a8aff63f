import { defineWorkspace } from '@agate/example-kit';

/** Files the demo starts with: two notes to summarize, and one file the task does not need. */
export const SEED_FILES: Readonly<Record<string, string>> = {
  'notes/2026-11-18-planning.md': [
    '# Planning meeting',
    '',
    '- Ship the file agent demo before the release.',
    '- Gates must block an agent that tries to finish early.',
    '- Ana owns the benchmark; target 1.3x of a plain AI SDK loop.',
    '',
  ].join('\n'),
  'notes/2026-11-20-retro.md': [
    '# Retro',
    '',
    '- The scripted model made the tick loop easy to test.',
    '- Long timelines were slow to render; memoize message components.',
    '- Next: persistence and resumable runs.',
    '',
  ].join('\n'),
  'README.txt':
    'Workspace for the Agate file agent. Summaries go to SUMMARY.md at the top level.\n',
};

/** The agent's sandbox: a fresh temp directory seeded with `SEED_FILES`; listings show sizes. */
export const workspace = defineWorkspace({
  tempPrefix: 'agate-file-agent-',
  seedFiles: SEED_FILES,
  examplePath: 'notes/a.md',
  listSizes: true,
});

export const { create: createWorkspace, resolveInside } = workspace;
