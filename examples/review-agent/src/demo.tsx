/**
 * The demo as an agent file for `agate run` (`pnpm start` here): the coder in a fresh temp
 * workspace, with its reviewer and docs sub-agents, on the offline model.
 */
import { rmSync } from 'node:fs';
import type { AgentFileOptions } from '@agate/cli';
import { ReviewAgent } from './agent.js';
import { offlineModel } from './offline-model.js';
import { createWorkspace } from './workspace.js';

const root = await createWorkspace();
process.once('exit', () => rmSync(root, { recursive: true, force: true }));

export default <ReviewAgent root={root} />;

export const options: AgentFileOptions = { model: offlineModel(), maxTicks: 10 };
