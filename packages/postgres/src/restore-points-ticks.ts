import type { SessionStore } from '@agate/core';
import {
  assertRestorePoint,
  assertValidSessionId,
  parseSnapshot,
  type RestorePointSummary,
  restorePointRef,
  serializeSnapshot,
  type TickRecord,
} from '@agate/core/stores';
import type { StoreDb } from './store-db.js';

type RestorePointParts = Required<
  Pick<SessionStore, 'saveRestorePoint' | 'loadRestorePoint' | 'listRestorePoints'>
>;
type TickLogParts = Required<Pick<SessionStore, 'appendTicks' | 'loadTicks'>>;

/** Restore points: one row per (session, tick), the snapshot as text. */
export function restorePointRows(db: StoreDb): RestorePointParts {
  return {
    async saveRestorePoint(sessionId, tick, snapshot) {
      assertRestorePoint(sessionId, tick, snapshot);
      const text = serializeSnapshot(snapshot);
      await db.query(
        `save restore point ${restorePointRef(sessionId, tick)}`,
        `insert into ${db.s}.restore_points (session_id, tick, saved_at, label, snapshot)
       values ($1, $2, $3, $4, $5)
       on conflict (session_id, tick) do update set saved_at = excluded.saved_at,
         label = excluded.label, snapshot = excluded.snapshot`,
        [sessionId, tick, snapshot.savedAt, snapshot.label ?? null, text],
      );
    },

    async loadRestorePoint(sessionId, tick) {
      assertRestorePoint(sessionId, tick);
      const ref = restorePointRef(sessionId, tick);
      const { rows } = await db.query<{ snapshot: string }>(
        `load restore point ${ref}`,
        `select snapshot from ${db.s}.restore_points where session_id = $1 and tick = $2`,
        [sessionId, tick],
      );
      const text = rows[0]?.snapshot;
      return text === undefined ? undefined : parseSnapshot(text, `postgres:${db.schema}/${ref}`);
    },

    async listRestorePoints(sessionId) {
      const { rows } = await db.query<{
        session_id: string;
        tick: number;
        saved_at: Date;
        label: string | null;
      }>(
        'list restore points',
        `select session_id, tick, saved_at, label from ${db.s}.restore_points
       ${sessionId === undefined ? '' : 'where session_id = $1'} order by session_id, tick`,
        sessionId === undefined ? [] : [sessionId],
      );
      return rows.map(
        (r): RestorePointSummary => ({
          sessionId: r.session_id,
          tick: r.tick,
          ref: restorePointRef(r.session_id, r.tick),
          savedAt: r.saved_at.toISOString(),
          ...(r.label === null ? {} : { label: r.label }),
        }),
      );
    },
  };
}

/** The tick log: one row per tick record, in order. */
export function tickRows(db: StoreDb): TickLogParts {
  return {
    async appendTicks(sessionId, records, replace) {
      assertValidSessionId(sessionId);
      const texts = records.map((r) => JSON.stringify(r));
      const insert = `insert into ${db.s}.ticks (session_id, record) select $1, u.r from unnest($2::text[]) with ordinality as u(r, i) order by u.i`;
      if (!replace) {
        await db.query(`append ticks of "${sessionId}"`, insert, [sessionId, texts]);
        return;
      }
      await db.transaction(`replace ticks of "${sessionId}"`, async (client) => {
        await client.query(`delete from ${db.s}.ticks where session_id = $1`, [sessionId]);
        await client.query(insert, [sessionId, texts]);
      });
    },

    async loadTicks(sessionId) {
      assertValidSessionId(sessionId);
      const { rows } = await db.query<{ record: string }>(
        `load ticks of "${sessionId}"`,
        `select record from ${db.s}.ticks where session_id = $1 order by n`,
        [sessionId],
      );
      return rows.map((r) => JSON.parse(r.record) as TickRecord);
    },
  };
}
