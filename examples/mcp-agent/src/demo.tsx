/**
 * The demo as an agent file for `agate run` (`pnpm start` here): the tidying agent on the
 * downloads folder in `.agate/downloads`, talking to the MCP filesystem server (a child process,
 * offline). The folder outlives the process, so a run that waits for approvals can be decided
 * with `agate approve` / `agate deny` and continued with `agate run src/demo.tsx --resume`.
 * The model is the scripted one below unless the environment names a real one.
 */
import type { AgentFileOptions } from '@agate/cli';
import { TidyAgent } from './agent.js';
import { offlineModel } from './offline-model.js';
import { demoDownloads } from './workspace.js';

const root = await demoDownloads();

export default <TidyAgent root={root} />;

export const options: AgentFileOptions = { model: offlineModel(root), maxTicks: 12 };
