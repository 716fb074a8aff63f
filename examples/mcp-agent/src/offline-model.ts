import { join } from 'node:path';
import { type ScriptedModel, scriptedModel } from '@agate/testing';

/** Where each seeded file belongs. */
export const PLAN: Readonly<Record<string, string>> = {
  'holiday.png': 'images',
  'cat.jpg': 'images',
  'invoice.pdf': 'docs',
  'notes.txt': 'docs',
};

/**
 * A scripted model that tidies `root`: it lists it, makes the two folders, moves the four
 * files in one response, and reports. The moves are the calls a person approves.
 */
export function offlineModel(root: string): ScriptedModel {
  return scriptedModel(
    [
      {
        text: 'Looking at the folder.',
        toolCalls: [{ toolName: 'list_directory', input: { path: root } }],
      },
      {
        text: 'Making the folders.',
        toolCalls: [
          { toolName: 'create_directory', input: { path: join(root, 'images') } },
          { toolName: 'create_directory', input: { path: join(root, 'docs') } },
        ],
      },
      {
        text: 'Moving the files.',
        toolCalls: Object.entries(PLAN).map(([file, folder]) => ({
          toolName: 'move_file',
          input: { source: join(root, file), destination: join(root, folder, file) },
        })),
      },
      'Done: holiday.png and cat.jpg are in images/, invoice.pdf and notes.txt in docs/.',
    ],
    { modelId: 'offline-mcp-agent' },
  );
}
