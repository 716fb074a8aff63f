import type pg from 'pg';
import { SCHEMA } from './tables.js';

/**
 * The cancellations this worker knows of, so that a step does not ask the database whether its
 * run was cancelled (one query less per model and tool call). Fed by the cancellation table,
 * read whole each time the listener (re)connects, and by `cancelRun`'s notifications in
 * between. While the listener is down, or before that first read, it knows nothing and the
 * step asks the table, as it always may.
 */
export class CancelWatch {
  private readonly ids = new Set<string>();
  /** Counts (re)connections, so a read made for an older connection is not trusted. */
  private generation = 0;
  private live = false;

  constructor(private readonly pool: pg.Pool) {}

  /** A notification: `workflowId` was cancelled. */
  heard(workflowId: string): void {
    this.ids.add(workflowId);
  }

  /** The run ended: it asks no more (its request left the table with it). */
  forget(workflowId: string): void {
    this.ids.delete(workflowId);
  }

  /** The listener is listening again: read what was cancelled meanwhile, then trust the set. */
  async connected(): Promise<void> {
    const generation = ++this.generation;
    this.live = false;
    const { rows } = await this.pool.query<{ workflow_id: string }>(
      `SELECT workflow_id FROM ${SCHEMA}.cancellations`,
    );
    if (generation !== this.generation) return;
    for (const row of rows) this.ids.add(row.workflow_id);
    this.live = true;
  }

  /** The listener lost its connection: notifications may be missed until it is back. */
  disconnected(): void {
    this.generation++;
    this.live = false;
  }

  /** True or false when known; `undefined` when the table must be asked. */
  known(workflowId: string): boolean | undefined {
    if (this.ids.has(workflowId)) return true;
    return this.live ? false : undefined;
  }
}
