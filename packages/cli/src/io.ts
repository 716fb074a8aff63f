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

export function processIo(): CliIo {
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    env: process.env,
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
