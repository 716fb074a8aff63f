/**
 * One side of the cross-process resume test, run as a child process:
 *   pause  <dir> <id>  runs ResumeAgent until the ContinueGate pauses it (saved to a file store)
 *   resume <dir> <id>  loads that session from the store and runs it to the end
 * Prints one JSON line with the outcome on stdout.
 */
import { createFileStore } from '../../persistence/file-store.js';
import { createSession } from '../session.js';
import { ResumeAgent, resumeModel } from './resume-agent.js';

async function main(): Promise<void> {
  const [mode, dir, id] = process.argv.slice(2);
  if ((mode !== 'pause' && mode !== 'resume') || dir === undefined || id === undefined) {
    throw new Error('usage: resume-process.tsx pause|resume <store dir> <session id>');
  }
  const store = createFileStore(dir);
  const model = resumeModel();
  let session: ReturnType<typeof createSession>;
  if (mode === 'pause') {
    session = createSession(<ResumeAgent />, { model, store, id });
  } else {
    const snapshot = await store.load(id);
    if (snapshot === undefined) throw new Error(`No session "${id}" in ${dir}`);
    session = createSession(<ResumeAgent />, { model, store, snapshot });
  }
  const result = await session.run();
  session.dispose();
  process.stdout.write(
    `${JSON.stringify({
      status: result.status,
      reason: result.reason,
      ticks: result.ticks,
      totalTicks: result.totalTicks,
      modelCalls: model.calls.length,
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
