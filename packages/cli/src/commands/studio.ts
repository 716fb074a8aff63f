import { APPROVAL_KEY_ENV, APPROVAL_KEY_FILE_ENV } from '@agate/core';
import { ExitCode } from '../errors.js';
import type { CliIo } from '../io.js';
import { openStore } from '../sessions/stored-session.js';
import { type StudioOptions, startStudio } from '../studio/server.js';
import { readPrivateKey } from './decide.js';

export interface StudioCommandOptions {
  store: string;
  port?: number;
  keyFile?: string;
}

/** `agate studio`: serves the inspector on 127.0.0.1 until Ctrl-C. */
export async function studioCommand(io: CliIo, options: StudioCommandOptions): Promise<number> {
  const ref = await openStore(options.store);
  const studio = await startStudio({
    store: ref.store,
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...studioSigner(io, options.keyFile),
  });
  io.out(`agate studio: ${studio.url} (sessions in ${ref.dir}; Ctrl-C to stop)\n`);
  await untilInterrupted(io);
  await studio.close();
  return ExitCode.ok;
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
