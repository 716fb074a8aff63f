import { APPROVAL_KEY_ENV, APPROVAL_KEY_FILE_ENV } from '@agate/core/internal';
import { CliError, ExitCode } from '../errors.js';
import type { CliIo } from '../io.js';
import { chooseModel } from '../run/choose-model.js';
import { loadAgentFile } from '../run/load-agent.js';
import { openStore } from '../sessions/stored-session.js';
import type { StudioAgent } from '../studio/chat.js';
import { type Studio, type StudioOptions, startStudio } from '../studio/server.js';
import { readPrivateKey } from './decide.js';

export interface StudioCommandOptions {
  store: string;
  port?: number;
  keyFile?: string;
  /** `--agent FILE`: the page gets a chat pane that runs this agent. */
  agent?: string;
  /** The model flags `agate run` takes, for `--agent`. */
  scripted?: string;
  scriptTurn?: number;
  model?: string;
  baseUrl?: string;
}

/** `agate studio`: serves the inspector on 127.0.0.1 until Ctrl-C. */
export async function studioCommand(io: CliIo, options: StudioCommandOptions): Promise<number> {
  const ref = await openStore(options.store);
  const agent =
    options.agent !== undefined ? await studioAgent(io, options.agent, options) : undefined;
  const studio = await startStudioFor({
    store: ref.store,
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(agent !== undefined
      ? { agent, ...(agent.approvalKey !== undefined ? { key: agent.approvalKey } : {}) }
      : studioSigner(io, options.keyFile)),
  });
  // The address holds this launch's token (as Jupyter prints it): only whoever reads it, or
  // opens it, can use the studio.
  if (agent !== undefined) io.out(`agent: ${agent.file}\nmodel: ${agent.modelDescription}\n`);
  io.out(`agate studio: ${studio.url} (sessions in ${ref.dir}; Ctrl-C to stop)\n`);
  await untilInterrupted(io);
  await studio.close();
  return ExitCode.ok;
}

/**
 * Starts the studio; a port it cannot listen on is a usage error (exit 2) with what to do,
 * not a stack trace.
 */
export async function startStudioFor(options: StudioOptions): Promise<Studio> {
  try {
    return await startStudio(options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const port = options.port ?? 0;
    if (code === 'EADDRINUSE') {
      throw new CliError(
        `port ${port} is in use: pick another with --port, or leave it out for a free one.`,
        ExitCode.usage,
        { cause: error },
      );
    }
    if (code === 'EACCES' || code === 'ERR_SOCKET_BAD_PORT') {
      throw new CliError(
        `cannot listen on port ${port} (${code}): pick a port from 1024 to 65535, or leave --port out for a free one.`,
        ExitCode.usage,
        { cause: error },
      );
    }
    throw error;
  }
}

/**
 * The agent of `--agent` and its model, chosen as `agate run` chooses it. The agent's tools run
 * in this process, so it holds no private key (as `agate run --studio`): decisions are signed
 * with the run's shared secret when one is set, else recorded unsigned.
 */
async function studioAgent(
  io: CliIo,
  file: string,
  options: StudioCommandOptions,
): Promise<StudioAgent> {
  if (options.keyFile !== undefined || nonEmpty(io.env[APPROVAL_KEY_FILE_ENV]) !== undefined) {
    throw new CliError(
      `--agent runs the agent's tools in the studio's process, which must then hold no private key (a tool could read it): drop ${options.keyFile !== undefined ? '--key-file' : APPROVAL_KEY_FILE_ENV}, and decide its signed checkpoints with a studio of their own (agate studio --key-file, without --agent).`,
      ExitCode.usage,
    );
  }
  const loaded = await loadAgentFile(file);
  const chosen = await chooseModel({
    ...(options.scripted !== undefined ? { scripted: options.scripted } : {}),
    ...(options.scriptTurn !== undefined
      ? { scriptTurn: { turn: options.scriptTurn, why: '--script-turn' } }
      : {}),
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
    env: io.env,
    ...(loaded.options.model !== undefined ? { fileModel: loaded.options.model } : {}),
  });
  const approvalKey = loaded.options.approvalKey ?? nonEmpty(io.env[APPROVAL_KEY_ENV]);
  return {
    file,
    element: loaded.element,
    options: loaded.options,
    model: chosen.model,
    modelDescription: chosen.description,
    ...(approvalKey !== undefined ? { approvalKey } : {}),
  };
}

/** The key decisions from the page are signed with: held here, never sent to the page. */
export function studioSigner(
  io: CliIo,
  keyFile: string | undefined,
): Pick<StudioOptions, 'privateKey' | 'key'> {
  const file = keyFile ?? nonEmpty(io.env[APPROVAL_KEY_FILE_ENV]);
  if (file !== undefined) return { privateKey: readPrivateKey(file) };
  const key = nonEmpty(io.env[APPROVAL_KEY_ENV]);
  return key !== undefined ? { key } : {};
}

/** Resolves on the first Ctrl-C or SIGTERM. */
export function untilInterrupted(io: CliIo): Promise<void> {
  return new Promise((resolve) => {
    const stop = io.onInterrupt(() => {
      stop();
      resolve();
    });
  });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
