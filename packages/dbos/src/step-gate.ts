/**
 * The steps a worker has in flight, and its stop: once `close` is called no run starts another
 * step here (it waits, never to go on in this process: its run is handed to another worker),
 * and `close` resolves when the steps in flight have ended — their answers recorded — or after
 * `graceMs`, whichever comes first.
 */
export class StepGate {
  private inFlight = 0;
  private closed = false;
  private idle: (() => void) | undefined;

  get isClosed(): boolean {
    return this.closed;
  }

  /** Runs one step, or waits for good when the worker is stopping. */
  async run<T>(step: () => Promise<T>): Promise<T> {
    if (this.closed) await new Promise<never>(() => {});
    this.inFlight++;
    try {
      return await step();
    } finally {
      this.inFlight--;
      if (this.inFlight === 0) this.idle?.();
    }
  }

  /** Stops new steps; true when every step in flight ended within `graceMs`. */
  async close(graceMs: number): Promise<boolean> {
    this.closed = true;
    if (this.inFlight === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      new Promise<boolean>((resolve) => {
        this.idle = () => resolve(true);
      }),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), graceMs);
      }),
    ]);
    clearTimeout(timer);
    return ended;
  }
}
