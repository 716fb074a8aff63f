import pg from 'pg';

export interface Listener {
  stop(): Promise<void>;
}

/**
 * One connection that LISTENs on PostgreSQL channels and hands each notification's payload to
 * its channel's handler. The workers use it for what other processes tell them at once:
 * decisions saved (`DECISION_CHANNEL`, sent by the PostgreSQL store in the decision's own
 * transaction) and cancellations (`CANCEL_CHANNEL`, sent by `cancelRun`). Nothing depends on it
 * alone: what it may miss while down is found another way (the watchman's round, the
 * cancellation table), and `onConnected` / `onDisconnected` say when that is needed.
 *
 * Cut by a restart, it reconnects every second until `stop`.
 */
export function listen(options: {
  databaseUrl: string;
  channels: Readonly<Record<string, (payload: string) => void>>;
  onError: (error: unknown) => void;
  /** After every (re)connection, once LISTEN is in place: nothing sent from now on is missed. */
  onConnected?: () => void;
  /** The connection was lost: notifications may be missed until `onConnected`. */
  onDisconnected?: () => void;
}): Listener {
  const names = Object.keys(options.channels);
  for (const name of names) {
    // Channel names go into LISTEN as identifiers: only the fixed lower-case names Agate uses.
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a channel name: ${name}`);
  }
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let connecting: Promise<void> | undefined;

  const lost = (which: pg.Client) => {
    if (client !== which) return;
    client = undefined;
    options.onDisconnected?.();
    reconnectLater();
  };

  const reconnectLater = () => {
    if (stopped || retry !== undefined) return;
    retry = setTimeout(() => {
      retry = undefined;
      connecting = connect();
    }, 1_000);
    retry.unref();
  };

  const connect = async () => {
    const next = new pg.Client({ connectionString: options.databaseUrl });
    // A cut connection reports here (never unheard) and is replaced.
    next.on('error', (error) => {
      options.onError(error);
      lost(next);
      next.end().catch(() => {});
    });
    next.on('end', () => lost(next));
    next.on('notification', (message) => {
      const handler = options.channels[message.channel];
      if (handler === undefined || message.payload === undefined) return;
      handler(message.payload);
    });
    try {
      await next.connect();
      for (const name of names) await next.query(`LISTEN ${name}`);
    } catch (error) {
      options.onError(error);
      await next.end().catch(() => {});
      reconnectLater();
      return;
    }
    if (stopped) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
    options.onConnected?.();
  };

  connecting = connect();

  return {
    async stop() {
      stopped = true;
      if (retry !== undefined) clearTimeout(retry);
      await connecting;
      const last = client;
      client = undefined;
      await last?.end().catch(() => {});
    },
  };
}
