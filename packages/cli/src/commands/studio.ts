import { APPROVAL_KEY_ENV, APPROVAL_KEY_FILE_ENV } from '@agate/core/internal';
import { CliError, ExitCode } from '../errors.js';
import type { CliIo } from '../io.js';
import { openStore } from '../sessions/stored-session.js';
import { type Studio, type StudioOptions, startStudio } from '../studio/server.js';
import { readPrivateKey } from './decide.js';

export interface StudioCommandOptions {
  store: string;
  port?: number;
  keyFile?: string;
}

/** `agate studio`: serves the inspector on 127.0.0.1 until Ctrl-C. */
export async function studioCommand(io: CliIo, options: StudioCommandOptions): Promise<number> {
  const ref = await openStore(options.store);
  const studio = await startStudioFor({
    store: ref.store,
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...studioSigner(io, options.keyFile),
  });
  // The address holds this launch's token (as Jupyter prints it): only whoever reads it, or
  // opens it, can use the studio.
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
