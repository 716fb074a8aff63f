/**
 * The demo as an agent file for `agate run` (`pnpm demo`): the file agent in a fresh temp
 * workspace seeded with two notes, with its summary gate. The model is the offline one below
 * unless the environment names a real one (AGATE_BASE_URL + AGATE_MODEL, or OPENAI_API_KEY).
 */
import { rmSync } from 'node:fs';
import type { AgentFileOptions } from '@agate/cli';
import { FileAgent } from './agent.js';
import { offlineModel } from './offline-model.js';
import { createWorkspace } from './workspace.js';

const root = await createWorkspace();
// The workspace is scratch space: gone when the run (and the process) ends.
process.once('exit', () => rmSync(root, { recursive: true, force: true }));

export default <FileAgent root={root} />;

export const options: AgentFileOptions = { model: offlineModel(), maxTicks: 20 };
