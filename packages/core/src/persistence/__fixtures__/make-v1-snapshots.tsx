/**
 * Wrote `v1-pending-checkpoint.json` (run once, with the code whose snapshots are version 1):
 *   pnpm tsx --conditions=@agate/source packages/core/src/persistence/__fixtures__/make-v1-snapshots.tsx
 * Kept for the record; running it with later code writes that code's layout instead.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scriptedModel } from '@agate/testing';
import { createMemoryStore, createSession } from '../../index.js';
import { TURNS_BEFORE, V1Agent } from './v1-agent.js';

const session = createSession(<V1Agent />, {
  id: 'v1-fixture',
  model: scriptedModel(TURNS_BEFORE),
  store: createMemoryStore(),
});
const result = await session.run();
if (result.status !== 'awaiting-approval') {
  throw new Error(`expected awaiting-approval, got ${result.status}: ${result.reason}`);
}
const snapshot = session.snapshot('awaiting-approval');
const file = join(import.meta.dirname, 'v1-pending-checkpoint.json');
writeFileSync(
  file,
  `${JSON.stringify({ ...snapshot, savedAt: '2026-11-25T06:00:00.000Z' }, null, 2)}\n`,
);
console.log(`wrote ${file}: ${result.status}, ${result.totalTicks} ticks`);
