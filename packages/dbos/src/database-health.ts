import { connectionProblem, firstLine } from '@agate/postgres';
import pg from 'pg';

/** What a worker tells its host (the CLI prints each as one line). */
export type WorkerEvent =
  /** The database stopped answering; runs wait (their steps retry), nothing is lost. */
  | { type: 'database-down'; error: string }
  /** It answers again after `downForMs`; runs go on. */
  | { type: 'database-up'; downForMs: number }
  /** Something else DBOS or the worker reported that a person may need to see. */
  | { type: 'warning'; message: string };

export interface HealthOptions {
  /** Tries a fresh connection; rejects when the database does not answer. */
  probe?: () => Promise<void>;
  /** First wait between probes while down, doubled up to `maxBackoffMs`. */
  firstBackoffMs?: number;
  maxBackoffMs?: number;
}

/**
 * Whether the worker's database answers, told once when it stops and once when it is back.
 *
 * Every part of a worker (DBOS's queue poller, its notification listener, the heartbeat, the
 * runs' steps) fails on its own while the database is away, each about once a second. Those
 * failures only make the health ask the database itself, on a fresh connection: a failing probe
 * is what marks it down (one event), and probes go on with a bounded backoff (250 ms doubling up
 * to 5 s) until one succeeds (one event). A stale pooled connection that fails once after a
 * restart only triggers a probe that succeeds: no event.
 */
export class DatabaseHealth {
  private downSince: number | undefined;
  private probing: Promise<void> | undefined;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;
  private readonly probe: () => Promise<void>;
  private readonly firstBackoffMs: number;
  private readonly maxBackoffMs: number;

  constructor(
    databaseUrl: string,
    private readonly emit: (event: WorkerEvent) => void,
    options: HealthOptions = {},
  ) {
    this.probe = options.probe ?? (() => probeDatabase(databaseUrl));
    this.firstBackoffMs = options.firstBackoffMs ?? 250;
    this.maxBackoffMs = options.maxBackoffMs ?? 5_000;
  }

  get isDown(): boolean {
    return this.downSince !== undefined;
  }

  /**
   * A failure seen somewhere. True when it is a lost or refused connection (then handled here:
   * probed, reported at most once); false for any other failure, which the caller reports.
   */
  suspect(error: unknown): boolean {
    if (connectionProblem(error) === undefined) return false;
    if (!this.stopped) this.probing ??= this.watch(error).finally(() => (this.probing = undefined));
    return true;
  }

  /** No more probes or events (the worker is stopping). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.wake?.();
    await this.probing;
  }

  private async watch(first: unknown): Promise<void> {
    let wait = this.firstBackoffMs;
    let last = first;
    while (!this.stopped) {
      try {
        await this.probe();
        if (this.downSince !== undefined && !this.stopped) {
          const downForMs = Date.now() - this.downSince;
          this.downSince = undefined;
          this.emit({ type: 'database-up', downForMs });
        }
        return;
      } catch (error) {
        last = error;
      }
      if (this.downSince === undefined && !this.stopped) {
        this.downSince = Date.now();
        this.emit({ type: 'database-down', error: firstLine(last) });
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        this.timer = setTimeout(resolve, wait);
        this.timer.unref();
      });
      wait = Math.min(wait * 2, this.maxBackoffMs);
    }
  }
}

/** One fresh connection and `SELECT 1`, bounded in time (a dead host never answers). */
export async function probeDatabase(databaseUrl: string, timeoutMs = 3_000): Promise<void> {
  const client = new pg.Client({
    connectionString: databaseUrl,
    connectionTimeoutMillis: timeoutMs,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
  } finally {
    await client.end().catch(() => {});
  }
}
