/**
 * One side of the sub-agent cross-process test, run as a child process:
 *   start  <dir> <id>  runs the parent until its run is aborted while the reviewer sub-agent is
 *                      on its second tick; saves the parent's snapshot to a file store
 *   resume <dir> <id>  loads it and runs to the end
 * Prints one JSON line with the outcome on stdout.
 */
import { scriptedModel } from '@agate/testing';
import { createFileStore } from '../../../persistence/file-store.js';
import { createSession } from '../../../runtime/session.js';
import { Parent } from './agents.js';

async function main(): Promise<void> {
  const [mode, dir, id] = process.argv.slice(2);
  if ((mode !== 'start' && mode !== 'resume') || dir === undefined || id === undefined) {
    throw new Error('usage: resume-process.tsx start|resume <store dir> <session id>');
  }
  const store = createFileStore(dir);
  const controller = new AbortController();
  const parent = scriptedModel(
    mode === 'start'
      ? [
          {
            toolCalls: [
              { toolName: 'reviewer', input: { task: 'review math.js' }, toolCallId: 'call_3' },
            ],
          },
        ]
      : ['Parent done: the reviewer answered.'],
  );
  const child = scriptedModel(
    mode === 'start'
      ? [
          { toolCalls: [{ toolName: 'run_tests', input: {} }] },
          () => {
            // The process is interrupted while the child's second model call is under way.
            controller.abort(new Error('interrupted'));
            return { text: 'never seen', delayMs: 300 };
          },
        ]
      : ['Child answer after resume.'],
  );
  const element = <Parent kind="plain" childModel={child} />;
  let session: ReturnType<typeof createSession>;
  if (mode === 'start') {
    session = createSession(element, { model: parent, store, id });
  } else {
    const snapshot = await store.load(id);
    if (snapshot === undefined) throw new Error(`No session "${id}" in ${dir}`);
    session = createSession(element, { model: parent, store, snapshot });
  }
  const result = await session.run({ signal: controller.signal });
  if (mode === 'start') await store.save(session.snapshot('interrupted'));
  session.dispose();
  process.stdout.write(
    `${JSON.stringify({
      status: result.status,
      parentCalls: parent.calls.length,
      childCalls: child.calls.length,
      childPrompt: JSON.stringify(child.calls[0]?.prompt ?? null),
      child: result.subAgents?.call_3
        ? {
            status: result.subAgents.call_3.status,
            ticks: result.subAgents.call_3.ticks,
            totalTicks: result.subAgents.call_3.totalTicks,
          }
        : null,
      timeline: result.timeline,
    })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
