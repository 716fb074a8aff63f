/**
 * The own-tick row's child process (started by main.ts): taps `generateText` before anything
 * imports `@agate/core` (sdk-tap.ts), then measures. Prints `RESULT <json>` like child.ts.
 */
import { childMain } from '../child-process.js';
import type { OwnTickOptions } from './measure.js';
import { registerSdkTap } from './sdk-tap.js';

registerSdkTap();
// Imported only now: its module graph loads @agate/core, whose `ai` import the tap replaces.
const { measureOwnTick } = await import('./measure.js');

childMain((options: Omit<OwnTickOptions, 'log'>) =>
  measureOwnTick({ ...options, log: (line) => process.stderr.write(`${line}\n`) }),
);
