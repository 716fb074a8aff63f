import type { Pool } from 'pg';
import { inTransaction } from './transaction.js';

/**
 * The store's tables, as numbered migrations. A migration is never edited once released: a
 * change is a new one. They run in order, each once per schema, recorded in `agate_migrations`.
 */
export interface Migration {
  version: number;
  name: string;
  sql: (schema: string) => string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions, timeline rows, restore points, tick log',
    sql: (s) => `
      create table ${s}.sessions (
        id text primary key,
        -- 0 only inside the transaction that first saves the session (a placeholder row).
        revision bigint not null,
        saved_at timestamptz not null default now(),
        label text,
        status text,
        format_version integer not null default 0,
        -- The snapshot's state as JSON text with an empty timeline; the timeline is in rows.
        head text not null default '',
        has_timeline boolean not null default false,
        timeline_start bigint not null default 0,
        timeline_count bigint not null default 0,
        -- The last few timeline messages as JSON: how the next save finds where it goes on.
        timeline_tail text not null default '[]'
      );
      create index sessions_saved_at on ${s}.sessions (saved_at, id);
      create index sessions_status on ${s}.sessions (status, id);
      create table ${s}.timeline (
        session_id text not null references ${s}.sessions (id) on delete cascade,
        seq bigint not null,
        message text not null,
        primary key (session_id, seq)
      );
      create table ${s}.restore_points (
        session_id text not null,
        tick integer not null,
        saved_at timestamptz not null,
        label text,
        snapshot text not null,
        primary key (session_id, tick)
      );
      create table ${s}.ticks (
        n bigint generated always as identity primary key,
        session_id text not null,
        record text not null
      );
      create index ticks_session on ${s}.ticks (session_id, n);
    `,
  },
  {
    version: 2,
    name: 'call signatures as rows, save ids',
    sql: (s) => `
      -- The ContinueGate's call signatures (state.progress.callSignatures, up to 2,000) are
      -- kept like the timeline, one row each, so the session row stays small.
      alter table ${s}.sessions
        add column has_signatures boolean not null default false,
        add column signatures_start bigint not null default 0,
        add column signatures_count bigint not null default 0,
        add column signatures_tail text not null default '[]',
        -- A random id per save: a store that made the stored save knows what it wrote.
        add column save_id text;
      create table ${s}.signatures (
        session_id text not null references ${s}.sessions (id) on delete cascade,
        seq bigint not null,
        signature text not null,
        primary key (session_id, seq)
      );
    `,
  },
];

/** The newest migration's version: what `migrate` brings a schema to. */
export const LATEST_MIGRATION = MIGRATIONS.at(-1)?.version ?? 0;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** A schema name checked to be a plain identifier, double-quoted for SQL. */
export function quoteSchema(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(
      `Invalid Postgres schema name ${JSON.stringify(schema)}: use 1-63 lowercase letters, digits and "_", not starting with a digit.`,
    );
  }
  return `"${schema}"`;
}

export interface MigrateResult {
  schema: string;
  /** Versions applied now (empty when the schema was already up to date). */
  applied: number[];
  /** The schema's version afterwards. */
  version: number;
}

/**
 * Brings `schema` up to the newest migration: all missing migrations in one transaction,
 * under a transaction-level advisory lock keyed by the schema, so two processes starting
 * together wait for each other instead of both creating the tables (the second then finds
 * nothing left to do). A failure rolls everything back.
 */
export async function migrateSchema(pool: Pool, schema: string): Promise<MigrateResult> {
  const s = quoteSchema(schema);
  // Any failure discards the connection: a half-done migration leaves nothing to reuse.
  return inTransaction(
    pool,
    async (client) => {
      await client.query('select pg_advisory_xact_lock(hashtext($1))', [`agate.migrate:${schema}`]);
      await client.query(`create schema if not exists ${s}`);
      await client.query(
        `create table if not exists ${s}.agate_migrations (
        version integer primary key, name text not null, applied_at timestamptz not null default now())`,
      );
      const done = await client.query<{ version: number }>(
        `select version from ${s}.agate_migrations`,
      );
      const have = new Set(done.rows.map((r) => Number(r.version)));
      const newer = [...have].filter((v) => v > LATEST_MIGRATION);
      if (newer.length > 0) {
        throw new Error(
          `Postgres schema "${schema}" has migration ${Math.max(...newer)}, newer than this @agate/postgres knows (${LATEST_MIGRATION}). Upgrade @agate/postgres.`,
        );
      }
      const applied: number[] = [];
      for (const migration of MIGRATIONS) {
        if (have.has(migration.version)) continue;
        await client.query(migration.sql(s));
        await client.query(`insert into ${s}.agate_migrations (version, name) values ($1, $2)`, [
          migration.version,
          migration.name,
        ]);
        applied.push(migration.version);
      }
      return { schema, applied, version: LATEST_MIGRATION };
    },
    () => true,
  );
}
