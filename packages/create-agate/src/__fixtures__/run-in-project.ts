import { type SpawnSyncOptions, spawnSync } from 'node:child_process';
import { cleanEnv } from '../../../../release/workspace.js';

/**
 * Runs a command of the installed project (npm, its bin) as the packed tests do: the
 * workspace's variables left out, 90 s at most, output as text.
 */
export const runInProject = (
  command: string,
  args: string[],
  options: Omit<SpawnSyncOptions, 'encoding'> = {},
) => spawnSync(command, args, { env: cleanEnv(), timeout: 90_000, ...options, encoding: 'utf8' });
