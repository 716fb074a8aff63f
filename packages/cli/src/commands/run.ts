import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  type AgateEvent,
  ApprovalKeyError,
  createSession,
  type RunResult,
  type RunStatus,
  type Session,
  type SessionSnapshot,
  type SessionState,
  type SessionStore,
} from '@agate/core';
import { APPROVAL_KEY_ENV } from '@agate/core/internal';
import { DEFAULT_SESSIONS_DIR, serializeSnapshot } from '@agate/core/stores';
import { CliError, ExitCode, type ExitCodeValue } from '../errors.js';
import { shellQuote } from '../format/shell-quote.js';
import { preview } from '../format/table.js';
import { type CliIo, type InterruptSignal, SIGNAL_EXIT } from '../io.js';
import { chooseModel, type ScriptTurn } from '../run/choose-model.js';
import { loadAgentFile } from '../run/load-agent.js';
import { startTracing } from '../run/tracing.js';
import { loadStoredSession, openStore, type StoreRef } from '../sessions/stored-session.js';
import type { Studio } from '../studio/server.js';
import { createPlainPrinter, resultLines } from '../view/plain.js';
import type { LiveView } from '../view/start-live-view.js';

export interface RunCommandOptions {
  /** A file store directory: the session is saved there when the run ends. */
  store?: string;
  scripted?: string;
  /** With `scripted`: the script's first turn to play (1-based). */
  scriptTurn?: number;
  /** In place of `AGATE_MODEL`. */
  model?: string;
  /** In place of `AGATE_BASE_URL`. */
  baseUrl?: string;
  json?: boolean;
  /** Plain lines even on a terminal. */
  plain?: boolean;
  resume?: string;
  /** `run({ takeOver: true })`: the stored claim of another process is overruled. */
  takeOver?: boolean;
  maxTicks?: number;
  /** Id for a new session. */
  id?: string;
  /** Keep a tick log and serve agate studio while (and after) the run. */
  studio?: boolean;
  studioPort?: number;
}

/** How messages name a store that the agent file gave as an object (not a directory). */
const AGENT_STORE = "the agent file's options.store";

export const RUN_EXIT: Record<RunStatus, ExitCodeValue> = {
  completed: ExitCode.ok,
  blocked: ExitCode.runFailed,
  stopped: ExitCode.runFailed,
  'max-ticks': ExitCode.runFailed,
  'output-limit': ExitCode.runFailed,
  'content-filter': ExitCode.runFailed,
  error: ExitCode.runFailed,
  paused: ExitCode.waiting,
  'awaiting-approval': ExitCode.waiting,
  aborted: ExitCode.interrupted,
};

/**
 * `agate run <agent-file>`: runs the agent with a live view, plain lines, or JSON lines, traced
 * through the OpenTelemetry SDK when the environment names an exporter (`run/tracing.ts`).
 */
export async function runCommand(
  io: CliIo,
  file: string,
  options: RunCommandOptions,
): Promise<number> {
  const tracing = await startTracing(io.env, io.err);
  try {
    return await runAgentFile(io, file, options);
  } finally {
    await tracing?.shutdown();
  }
}

async function runAgentFile(io: CliIo, file: string, options: RunCommandOptions): Promise<number> {
  const agent = await loadAgentFile(file);
  // --studio keeps the session (and its tick log) in a store: the given one, else the default.
  const ref =
    (await storeFor(options, agent.options.store)) ??
    (options.studio ? await openStore(DEFAULT_SESSIONS_DIR) : undefined);
  const { snapshot, modelCallsSoFar } = await resumed(options, ref);
  const chosen = await chooseRunModel(io, options, agent.options.model, modelCallsSoFar);
  // The script's turn that follows those this run played: the printed resume command goes on
  // from there. Counted from the state, so a turn whose tick was cut off is played again.
  const firstTurn = options.scriptTurn ?? 1;
  const nextTurn = (state: SessionState) => firstTurn + modelCallsOf(state) - modelCallsSoFar;
  let nextTurnAtLastTickEnd = firstTurn;
  let nextTurnAtEnd: number | undefined;
  const resumeCommand = (store: { dir: string }, id: string) =>
    resumeCommandFor(file, options, store, id, nextTurnAtEnd ?? nextTurnAtLastTickEnd);

  const mode = options.json ? 'json' : io.isTTY && !options.plain ? 'live' : 'plain';
  const write = (text: string) => io.out(text);
  const controller = new AbortController();
  let live: LiveView | undefined;
  const plain = mode === 'plain' ? createPlainPrinter(write) : undefined;
  // Passed explicitly: the process's own environment no longer holds it (see processIo).
  const approvalKey = agent.options.approvalKey ?? nonEmpty(io.env[APPROVAL_KEY_ENV]);
  const session: Session = createSession(agent.element, {
    ...agent.options,
    ...(approvalKey !== undefined ? { approvalKey } : {}),
    model: chosen.model,
    signal: controller.signal,
    onEvent: (event: AgateEvent) => {
      if (mode === 'json') write(`${jsonLine(event)}\n`);
      plain?.(event);
      live?.dispatch(event, session);
      agent.options.onEvent?.(event);
    },
    ...(ref !== undefined ? { store: ref.store } : {}),
    ...(snapshot !== undefined ? { snapshot } : {}),
    ...(options.id !== undefined ? { id: options.id } : {}),
    ...(options.maxTicks !== undefined ? { maxTicks: options.maxTicks } : {}),
    ...(options.studio ? { tickLog: agent.options.tickLog ?? true } : {}),
    // The live view shows the text as it streams; elsewhere the agent's own choice stands.
    ...(mode === 'live' ? { streaming: true } : {}),
  });
  // Printed once the session exists: a bad --id or snapshot fails before any output.
  if (mode !== 'json') write(`agent: ${file}\nmodel: ${chosen.description}\n`);
  if (approvalKey !== undefined) io.err(SHARED_SECRET_WARNING);
  // Ink (and its React renderer) is loaded only when the live view is drawn: --plain, --json
  // and piped output never pay for it.
  if (mode === 'live') live = (await import('../view/start-live-view.js')).startLiveView();
  let running = true;
  const liveSession = () => (running ? session : undefined);
  // `ref` is never undefined with --studio (see above).
  const studio = options.studio
    ? await startRunStudio(io, ref!.store, liveSession, options, approvalKey)
    : undefined;
  // A tick's record is complete when the next tick starts, or the run ends.
  const stopNotifying = studio
    ? session.subscribe(() => studio.notify(session.id), { types: ['tick:start', 'run:end'] })
    : () => {};

  let result: RunResult;
  let interrupted: InterruptSignal | undefined;
  // The state at the last tick end, kept so that a second signal can still write it at once.
  let lastTickEnd = session.snapshot('running');
  const stopWatching = session.subscribe(
    () => {
      lastTickEnd = session.snapshot('interrupted');
      nextTurnAtLastTickEnd = nextTurn(session.state);
    },
    { types: ['tick:end'] },
  );
  // Where an interrupted run is saved: the named store, else the default one.
  const saveRef = ref ?? (await openStore(DEFAULT_SESSIONS_DIR));
  const stopListening = io.onInterrupt(
    (signal) => {
      interrupted = signal;
      controller.abort(
        new Error(signal === 'SIGINT' ? 'interrupted (Ctrl-C)' : 'terminated (SIGTERM)'),
      );
    },
    () => {
      if (saveRef.dir !== AGENT_STORE) saveSnapshotNow(saveRef.dir, lastTickEnd);
      io.err(
        `\nsession ${session.id} saved as of its last tick; continue it with: ${resumeCommand(saveRef, session.id)}\n`,
      );
    },
  );
  // A tool may await something that never settles (no timer, no socket): Node would then leave
  // with exit code 13 and nothing saved. A referenced timer keeps the process alive while the run is.
  const keepAlive = setInterval(() => {}, 60_000);
  try {
    result = await session.run(options.takeOver ? { takeOver: true } : {});
    nextTurnAtEnd = nextTurn(session.state);
    if (ref !== undefined) await saveAtEnd(session, ref, result, io);
    else if (interrupted !== undefined) await saveAtEnd(session, saveRef, result, io);
  } finally {
    running = false;
    stopNotifying();
    clearInterval(keepAlive);
    stopWatching();
    stopListening();
    session.dispose();
    await live?.finish();
  }

  if (mode !== 'json') {
    if (mode === 'plain') write(`${resultLines(result).join('\n')}\n`);
    const shownRef = ref ?? (interrupted !== undefined ? saveRef : undefined);
    for (const hint of nextSteps(result, session.id, shownRef, resumeCommand)) write(`${hint}\n`);
  } else if (interrupted !== undefined) {
    io.err(
      `session ${session.id} saved; continue it with: ${resumeCommand(saveRef, session.id)}\n`,
    );
  }
  if (studio !== undefined) await keepStudioOpen(io, studio, session.id, interrupted);
  return exitCodeOf(result, interrupted);
}

/** The model flags, else the environment, else the agent file's model. */
function chooseRunModel(
  io: CliIo,
  options: RunCommandOptions,
  fileModel: Parameters<typeof chooseModel>[0]['fileModel'],
  modelCallsSoFar: number,
): ReturnType<typeof chooseModel> {
  return chooseModel({
    ...(options.scripted !== undefined ? { scripted: options.scripted } : {}),
    ...scriptTurnOf(options, modelCallsSoFar),
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
    env: io.env,
    ...(fileModel !== undefined ? { fileModel } : {}),
  });
}

/** `--studio`: serves the store, with the running session live, while (and after) the run. */
async function startRunStudio(
  io: CliIo,
  store: SessionStore,
  live: () => Session | undefined,
  options: RunCommandOptions,
  approvalKey: string | undefined,
): Promise<Studio> {
  const studio = await (await import('./studio.js')).startStudioFor({
    store,
    live,
    ...(options.studioPort !== undefined ? { port: options.studioPort } : {}),
    // Never a private key here: the run must not hold one (docs/security.md). Decisions
    // from the page are signed only with the run's shared secret, when it has one.
    ...(approvalKey !== undefined ? { key: approvalKey } : {}),
  });
  io.err(`agate studio: ${studio.url} (ticks appear as they happen)\n`);
  return studio;
}

/** With `--resume`: the stored session and how many model calls it has made so far. */
async function resumed(
  options: RunCommandOptions,
  ref: StoreRef | undefined,
): Promise<{ snapshot: SessionSnapshot | undefined; modelCallsSoFar: number }> {
  if (options.resume === undefined) return { snapshot: undefined, modelCallsSoFar: 0 };
  if (options.id !== undefined) {
    throw new CliError(
      '--id names a new session; it cannot be used with --resume.',
      ExitCode.usage,
    );
  }
  // Never undefined here: --resume always has a store (the default one at least).
  const stored = await loadStoredSession(ref!, options.resume);
  return { snapshot: stored.snapshot, modelCallsSoFar: modelCallsOf(stored.state) };
}

const SHARED_SECRET_WARNING =
  'warning: the approval key is a shared secret, and a tool in this run can read it (from ' +
  '/proc/self/environ, or the agent file) and approve its own checkpoints. Use a key pair: ' +
  '`agate keys new`, then give the run only AGATE_APPROVAL_PUBLIC_KEY (docs/security.md).\n';

/** After the run: studio shows the final tick and, unless the run was interrupted, stays up. */
async function keepStudioOpen(
  io: CliIo,
  studio: Studio,
  sessionId: string,
  interrupted: InterruptSignal | undefined,
): Promise<void> {
  studio.notify(sessionId);
  if (interrupted === undefined) {
    io.err(
      `agate studio stays at ${studio.url} to inspect the run and decide checkpoints; Ctrl-C to leave.\n`,
    );
    await (await import('./studio.js')).untilInterrupted(io);
  }
  await studio.close();
}

function exitCodeOf(result: RunResult, interrupted: InterruptSignal | undefined): number {
  if (interrupted !== undefined && result.status === 'aborted') return SIGNAL_EXIT[interrupted];
  // A key the session needs and the run lacks (or cannot read) is the user's to give, as for
  // `agate approve`: the reason says which and how.
  if (result.status === 'error' && ApprovalKeyError.isInstance(result.error))
    return ExitCode.badKey;
  return RUN_EXIT[result.status] ?? ExitCode.runFailed;
}

/**
 * The command that continues the session, with the model flags this run was given (a resumed
 * `--scripted` run goes on from the turn after those the session used; see `scriptTurnOf`).
 * Never a key: those stay in the environment.
 */
export function resumeCommandFor(
  file: string,
  options: Pick<RunCommandOptions, 'scripted' | 'model' | 'baseUrl'>,
  ref: { dir: string },
  id: string,
  nextScriptTurn = 1,
): string {
  const words = ['agate', 'run', file];
  if (options.scripted !== undefined) {
    words.push('--scripted', options.scripted);
    if (nextScriptTurn > 1) words.push('--script-turn', String(nextScriptTurn));
  }
  if (options.model !== undefined) words.push('--model', options.model);
  if (options.baseUrl !== undefined) words.push('--base-url', options.baseUrl);
  if (ref.dir !== AGENT_STORE) words.push('--store', ref.dir);
  words.push('--resume', id);
  return words.map(shellQuote).join(' ');
}

/** Model calls a stored session has made: its committed ticks, and a tick whose tools were cut off. */
export function modelCallsOf(state: SessionState): number {
  return state.tick + (state.inflight !== undefined ? 1 : 0);
}

/**
 * The script's first turn: `--script-turn` (what the printed resume command passes), else the
 * first. Resuming a session that has asked a model already without it plays the script from
 * its start (a script written for the rest of the run), and the first lines say so.
 */
function scriptTurnOf(
  options: RunCommandOptions,
  modelCallsSoFar: number,
): { scriptTurn?: ScriptTurn } {
  if (options.scriptTurn !== undefined) {
    return { scriptTurn: { turn: options.scriptTurn, why: '--script-turn' } };
  }
  if (options.scripted === undefined || options.resume === undefined || modelCallsSoFar === 0) {
    return {};
  }
  const calls = `${modelCallsSoFar} model call${modelCallsSoFar === 1 ? '' : 's'}`;
  return {
    scriptTurn: {
      turn: 1,
      why: `session ${options.resume} has made ${calls}; --script-turn ${modelCallsSoFar + 1} would go on after them`,
    },
  };
}

/**
 * Writes a snapshot to a file store directory synchronously (the second Ctrl-C: there is no
 * time for the event loop). Atomic like the file store's own saves: a temp file, then a rename.
 */
function saveSnapshotNow(dir: string, snapshot: SessionSnapshot): void {
  try {
    const root = resolve(dir);
    mkdirSync(root, { recursive: true });
    const target = join(root, `${snapshot.id}.json`);
    const temp = `${target}.${process.pid}.exit.tmp`;
    writeFileSync(temp, serializeSnapshot(snapshot));
    renameSync(temp, target);
  } catch {
    // Leaving anyway: the previous save, if any, is intact.
  }
}

/**
 * The store the session is saved to: `--store DIR`, else the agent file's `options.store`,
 * else, for `--resume`, the default directory (where a paused run was saved).
 */
async function storeFor(
  options: RunCommandOptions,
  fileStore: SessionStore | undefined,
): Promise<StoreRef | undefined> {
  if (options.store !== undefined) return openStore(options.store);
  if (fileStore !== undefined) return { store: fileStore, dir: AGENT_STORE };
  if (options.resume !== undefined) return openStore(DEFAULT_SESSIONS_DIR);
  return undefined;
}

/** With a store, every run's end is saved, so `agate sessions` lists it and `--resume` continues it. */
async function saveAtEnd(
  session: Session,
  ref: StoreRef,
  result: RunResult,
  io: CliIo,
): Promise<void> {
  try {
    await ref.store.save(session.snapshot(result.status));
  } catch (error) {
    io.err(
      `warning: the session could not be saved to ${ref.dir}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  }
}

function nextSteps(
  result: RunResult,
  id: string,
  ref: StoreRef | undefined,
  resumeCommand: (ref: { dir: string }, id: string) => string,
): string[] {
  if (result.status === 'completed') return [];
  // A run that ends awaiting approval is saved even without a store (to the default one).
  const dir =
    ref?.dir ?? (result.status === 'awaiting-approval' ? DEFAULT_SESSIONS_DIR : undefined);
  if (dir === undefined) return [];
  const store = dir === AGENT_STORE ? '' : ` --store ${shellQuote(dir)}`;
  const pending = Object.entries(result.checkpoints)
    .filter(([, state]) => state === 'pending')
    .map(([checkpoint]) => checkpoint);
  return [
    ...pending.map(
      (checkpoint) =>
        `approve: agate approve ${id} ${checkpoint} --by <name>${store}   (reject: agate reject ${id} ${checkpoint} --by <name> --feedback <text>${store})`,
    ),
    ...result.pendingApprovals.map(
      (call) =>
        `${call.toolName} ${preview(JSON.stringify(call.input) ?? '', 80)} awaits approval: agate approve ${id} ${call.id} --by <name>${store}   (deny: agate deny ${id} ${call.id} --by <name> --reason <text>${store})`,
    ),
    `session ${id} saved; continue it with: ${resumeCommand({ dir }, id)}`,
  ];
}

/** One event as a JSON line; an `Error` inside (a tool's thrown value) becomes its message. */
export function jsonLine(event: AgateEvent): string {
  return JSON.stringify(event, (_key, value: unknown) =>
    value instanceof Error ? { name: value.name, message: value.message } : value,
  );
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
