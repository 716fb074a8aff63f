/**
 * The one-off script that wrote `v2-both-ledgers.json` with the version-2 code (commit 291dd33):
 * `git archive 291dd33 | tar -x -C /tmp/v2`, copy this file and `v2-agent.tsx` into the same
 * folder there, link node_modules, and run it with vitest (`pnpm vitest run <path>`). Not a test
 * of today's code: vitest does not pick it up (no `.test.` in its name; copy it to a `.test.tsx` name there).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scriptedModel } from '@agate/testing';
import { it } from 'vitest';
import { createMemoryStore, createSession } from '../../index.js';
import { V2_FIXTURE_KEY, V2Agent } from './v2-agent.js';

it('writes the version-2 fixture', async () => {
  const store = createMemoryStore();
  const options = { id: 'v2-ledgers', store, approvalKey: V2_FIXTURE_KEY };
  const first = createSession(<V2Agent />, {
    ...options,
    model: scriptedModel([
      {
        toolCalls: [
          { toolName: 'submit_checkpoint', input: { id: 'T-1', summary: 'I will pay 500.' } },
        ],
      },
    ]),
  });
  await first.run();
  first.approve('T-1', { by: 'ana', note: 'go on' });
  const second = createSession(<V2Agent />, {
    ...options,
    snapshot: first.snapshot(),
    model: scriptedModel([
      {
        toolCalls: [
          { toolCallId: 'pay-1', toolName: 'pay', input: { cents: 500 } },
          { toolCallId: 'drop-1', toolName: 'drop', input: { table: 'old_logs' } },
        ],
      },
    ]),
  });
  await second.run();
  second.approveToolCall('pay-1', { by: 'cfo', reason: 'invoice 7' });
  const snapshot = second.snapshot();
  snapshot.savedAt = '2026-12-01T00:00:00.000Z';
  writeFileSync(
    join(import.meta.dirname, 'v2-both-ledgers.json'),
    `${JSON.stringify(snapshot, null, 2)}\n`,
  );
});
