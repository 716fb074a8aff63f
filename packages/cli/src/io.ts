import { APPROVAL_KEY_ENV } from '@agate/core/internal';

/** Where a command writes, and what it reads from its environment; tests pass their own. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
  /** True when standard output is a terminal (the live view is shown then). */
  isTTY: boolean;
  /**
   * Calls `handler` on Ctrl-C (SIGINT) or SIGTERM until the returned function is called. A second
   * signal leaves at once: `onExit` runs first (synchronously: it keeps what was saved), then the
   * process exits with 128 + the signal's number.
   */
  onInterrupt(handler: (signal: InterruptSignal) => void, onExit?: () => void): () => void;
}

export type InterruptSignal = 'SIGINT' | 'SIGTERM';

/** 128 + the signal number, as shells report a process ended by it. */
export const SIGNAL_EXIT: Record<InterruptSignal, 130 | 143> = { SIGINT: 130, SIGTERM: 143 };

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
    onInterrupt(handler, onExit) {
      let pressed = false;
      const listener = (signal: InterruptSignal) => {
        // The first signal asks for a clean stop (abort, save); a second one leaves at once.
        if (pressed) {
          try {
            onExit?.();
          } finally {
            process.exit(SIGNAL_EXIT[signal]);
          }
        }
        pressed = true;
        handler(signal);
      };
      process.on('SIGINT', listener);
      process.on('SIGTERM', listener);
      return () => {
        process.off('SIGINT', listener);
        process.off('SIGTERM', listener);
      };
    },
  };
}
