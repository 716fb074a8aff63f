import { APPROVAL_KEY_ENV } from '@agate/core';

/** Where a command writes, and what it reads from its environment; tests pass their own. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
  /** True when standard output is a terminal (the live view is shown then). */
  isTTY: boolean;
  /** Calls `handler` on Ctrl-C (SIGINT) until the returned function is called. */
  onInterrupt(handler: () => void): () => void;
}

/**
 * The process's streams and a copy of its environment. The approval key is then removed from
 * the process's own environment: commands pass it on explicitly, and an agent's tools (a
 * shell they spawn inherits the environment) must not be able to sign their own approvals.
 */
export function processIo(): CliIo {
  const env = { ...process.env };
  delete process.env[APPROVAL_KEY_ENV];
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    env,
    isTTY: process.stdout.isTTY === true,
    onInterrupt(handler) {
      let pressed = false;
      const listener = () => {
        // The first Ctrl-C asks for a clean stop; a second one leaves at once.
        if (pressed) process.exit(130);
        pressed = true;
        handler();
      };
      process.on('SIGINT', listener);
      return () => {
        process.off('SIGINT', listener);
      };
    },
  };
}
