import { DECISION_CHANNEL } from '@agate/postgres';
import pg from 'pg';

export interface DecisionListener {
  stop(): Promise<void>;
}

/**
 * Hears decisions as they are saved: the PostgreSQL store notifies `DECISION_CHANNEL` (with the
 * session id) in the transaction that records a checkpoint or tool-call decision, from whatever
 * process made it (`approveCheckpoint`, `agate approve --store postgres://…`). Each one calls
 * `onDecision` at once, so the waiting run is woken without waiting for the watchman's round,
 * which stays as the backstop for anything missed while this connection was down.
 *
 * One connection of its own (LISTEN holds it); cut by a restart, it reconnects every second
 * until `stop`.
 */
export function listenForDecisions(options: {
  databaseUrl: string;
  onDecision: (sessionId: string) => void;
  onError: (error: unknown) => void;
  /** Called after every (re)connection: decisions made while it was down are looked for. */
  onConnected?: () => void;
}): DecisionListener {
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let connecting: Promise<void> | undefined;

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
      if (client === next) client = undefined;
      next.end().catch(() => {});
      reconnectLater();
    });
    next.on('end', () => {
      if (client === next) {
        client = undefined;
        reconnectLater();
      }
    });
    next.on('notification', (message) => {
      if (message.channel !== DECISION_CHANNEL || message.payload === undefined) return;
      options.onDecision(message.payload);
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${DECISION_CHANNEL}`);
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
