import { requirePostgres, scaledLimit, startPostgres, type TestPostgres } from '@agate/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateDatabaseError, createDatabase } from './create-database.js';

describe.skipIf(!requirePostgres('createDatabase'))('createDatabase', () => {
  let server: TestPostgres;
  let base: string;
  beforeAll(async () => {
    server = await startPostgres({ private: true });
    base = server.url.replace(/\/postgres$/, '');
  }, scaledLimit(30_000));
  afterAll(() => server?.stop());

  it('creates a missing database once, also when two processes ask at once, any name', async () => {
    const name = 'odd "name" here';
    const url = `${base}/${encodeURIComponent(name)}`;
    const [a, b] = await Promise.all([createDatabase(url), createDatabase(url)]);
    expect([a.created, b.created].sort()).toEqual([false, true]);
    expect(await createDatabase(url)).toEqual({ database: name, created: false });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query<{ db: string }>('select current_database() as db');
    await client.end();
    expect(rows[0]?.db).toBe(name);
  }, 30_000);

  it('says what to ask for when the role may not create databases', async () => {
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await admin.query('CREATE ROLE nocreate LOGIN');
    await admin.end();
    const url = `${base.replace('agate@', 'nocreate@')}/theirs`;
    const failure = await createDatabase(url).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CreateDatabaseError);
    expect((failure as Error).message).toBe(
      'role "nocreate" may not create databases. Ask the server\'s administrator to run CREATE DATABASE "theirs" OWNER "nocreate" (or to give the role CREATEDB), then run this again.',
    );
  });

  it('refuses a URL that names no database', async () => {
    await expect(createDatabase(`${base}/`)).rejects.toThrow(/names no database/);
  });
});
