/**
 * One supervisor of the racing-decisions fault case, run as a child process:
 *   decider <store> <approve|reject|approve-call|deny-call> <by>
 * `<store>` is a directory (file store) or a postgres:// URL (Postgres store). For each line
 * `<session id>` on stdin it decides checkpoint T-1 (or held tool call c-drop) of that session
 * at once and prints one JSON line: `{ id, ok: true }` or `{ id, ok: false, name, message, decidedBy }`.
 */
import { createInterface } from 'node:readline';
// The Postgres store by path, not by package name: @agate/postgres depends on @agate/core.
import { createPostgresStore } from '../../../../postgres/src/index.js';
import {
  approveCheckpoint,
  rejectCheckpoint,
} from '../../families/checkpoints/approve-checkpoint.js';
import { approveToolCall, denyToolCall } from '../../families/tool-approvals/approve-tool-call.js';
import { createFileStore } from '../../persistence/file-store.js';
import type { SessionStore } from '../../persistence/session-store.js';

const [where, kind, by] = process.argv.slice(2);
const KINDS = ['approve', 'reject', 'approve-call', 'deny-call'];
if (where === undefined || kind === undefined || !KINDS.includes(kind) || by === undefined) {
  throw new Error('usage: decider <store> <approve|reject|approve-call|deny-call> <by>');
}
const postgres = /^postgres(ql)?:\/\//.test(where)
  ? createPostgresStore({ connectionString: where })
  : undefined;
const store: SessionStore = postgres ?? createFileStore(where);

const lines = createInterface({ input: process.stdin });
for await (const id of lines) {
  if (id.trim() === '') continue;
  try {
    if (kind === 'approve') await approveCheckpoint(store, id, 'T-1', { by });
    else if (kind === 'reject')
      await rejectCheckpoint(store, id, 'T-1', { by, feedback: 'Do it again.' });
    else if (kind === 'approve-call') await approveToolCall(store, id, 'c-drop', { by });
    else await denyToolCall(store, id, 'c-drop', { by, reason: 'Not today.' });
    process.stdout.write(`${JSON.stringify({ id, ok: true })}\n`);
  } catch (error) {
    const e = error as Error & { decidedBy?: string };
    process.stdout.write(
      `${JSON.stringify({ id, ok: false, name: e.name, message: e.message, decidedBy: e.decidedBy })}\n`,
    );
  }
}
await postgres?.close();
