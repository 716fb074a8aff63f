/**
 * The demo as an agent file for `agate run` (`pnpm start` here): the tidying agent on a fresh
 * downloads folder, talking to the MCP filesystem server (a child process, offline). The model
 * is the scripted one below unless the environment names a real one.
 */
import { rmSync } from 'node:fs';
import type { AgentFileOptions } from '@agate/cli';
import { TidyAgent } from './agent.js';
import { offlineModel } from './offline-model.js';
import { createDownloads } from './workspace.js';

const root = await createDownloads();
// Scratch space: gone when the process ends.
process.once('exit', () => rmSync(root, { recursive: true, force: true }));

export default <TidyAgent root={root} />;

export const options: AgentFileOptions = { model: offlineModel(root), maxTicks: 12 };
