import { type SpawnSyncOptions, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cleanEnv } from '../../../release/workspace.js';
import { requirePostgres, startPostgres, type TestPostgres } from '../../testing/src/postgres.js';

/**
 * Issue 50 item 2: the `durable` template's project, written by the packed
 * `create-agate --template durable --from` and installed with `npm ci` from its committed lock
 * (release/packed.setup.ts, beside the starter's install), type-checks, passes its tests, and
 * follows its README against a real PostgreSQL: `.env`, `npm run db:create`, `npm run demo` (a
 * worker process takes the run a client queued), offline on the scripted model.
 */
const { project } = inject('packedRun');
const dir = project.durableDir;
const hasPostgres = requirePostgres("the durable template's demo");

/** Offline whatever the machine's environment holds: no model, no database but the test's. */
const env = (): NodeJS.ProcessEnv => {
  const clean = cleanEnv();
  for (const name of [
    'DATABASE_URL',
    'AGATE_BASE_URL',
    'AGATE_MODEL',
    'AGATE_API_KEY',
    'OPENAI_API_KEY',
    'OPENAI_BASE_URL',
  ]) {
    delete clean[name];
  }
  return clean;
};

const npm = (args: string[], options: Omit<SpawnSyncOptions, 'encoding'> = {}) => {
  const result = spawnSync('npm', args, {
    cwd: dir,
    env: env(),
    timeout: 120_000,
    ...options,
    encoding: 'utf8',
  });
  return { ...result, output: `${result.stdout}\n${result.stderr}` };
};

/** Every installed copy of a package, by version. */
function installedVersions(root: string, name: string): string[] {
  const found: string[] = [];
  const walk = (modules: string) => {
    let entries: string[];
    try {
      entries = readdirSync(modules);
    } catch {
      return;
    }
    for (const entry of entries) {
      const scoped = entry.startsWith('@')
        ? readdirSync(join(modules, entry)).map((e) => `${entry}/${e}`)
        : [entry];
      for (const pkg of scoped) {
        if (pkg === name) {
          found.push(JSON.parse(readFileSync(join(modules, pkg, 'package.json'), 'utf8')).version);
        }
        walk(join(modules, pkg, 'node_modules'));
      }
    }
  };
  walk(join(root, 'node_modules'));
  return found;
}

describe('the durable template, installed from its own lock', () => {
  let pg: TestPostgres | undefined;
  beforeAll(async () => {
    if (hasPostgres) pg = await startPostgres({ private: true });
  }, 120_000);
  afterAll(async () => {
    rmSync(join(dir, '.env'), { force: true });
    await pg?.stop();
  });

  it('holds @agate/dbos, its store and @ai-sdk/openai, with one copy of the AI SDK provider packages', () => {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(Object.keys(pkg.dependencies)).toEqual(
      expect.arrayContaining(['@agate/dbos', '@agate/postgres', '@ai-sdk/openai']),
    );
    for (const name of ['@ai-sdk/provider', '@ai-sdk/provider-utils', '@agate/core']) {
      expect(installedVersions(dir, name), name).toHaveLength(1);
    }
  });

  it('npm run typecheck passes', () => {
    const check = npm(['run', 'typecheck']);
    expect(check.status, check.output).toBe(0);
  }, 120_000);

  it('npm test passes (the agent in-process on the scripted model: no database)', () => {
    const test = npm(['test']);
    expect(test.status, test.output).toBe(0);
    expect(test.stdout).toMatch(/5 passed/);
  }, 120_000);

  it('npm run demo without a database says to set DATABASE_URL and run db:create (exit 1)', () => {
    const demo = npm(['run', '-s', 'demo']);
    expect(demo.status).toBe(1);
    expect(demo.stderr).toContain('Set DATABASE_URL');
    expect(demo.stderr).toContain('npm run db:create');
  });

  it.runIf(hasPostgres)(
    'as the README says: .env, npm run db:create, npm run demo — a worker process takes the queued run, completed offline',
    () => {
      const url = new URL((pg as TestPostgres).url);
      url.pathname = '/durable_demo';
      writeFileSync(join(dir, '.env'), `DATABASE_URL=${url.href}\n`);
      const create = npm(['run', '-s', 'db:create']);
      expect(create.status, create.output).toBe(0);
      expect(create.stdout).toContain('Created database "durable_demo"');
      expect(create.stdout).toContain('Durable runs:');
      const demo = npm(['run', '-s', 'demo']);
      expect(demo.status, demo.output).toBe(0);
      expect(demo.stdout).toContain('model: the scripted demo model');
      expect(demo.stdout).toMatch(/agate worker \S+: running support/);
      expect(demo.stdout).toMatch(/run ticket-\w+: completed\nreply: .*urgent/);
      expect(demo.stdout).toMatch(/agate worker \S+: stopped; every step in flight finished/);
      // The session is in the store `agate show` reads.
      const id = /run (ticket-\w+): completed/.exec(demo.stdout)?.[1] ?? '';
      const show = spawnSync(
        join(dir, 'node_modules/.bin/agate'),
        ['show', id, '--store', url.href],
        { cwd: dir, env: env(), encoding: 'utf8', timeout: 60_000 },
      );
      expect(show.status, show.stderr).toBe(0);
      expect(show.stdout).toMatch(/status: completed/);
      expect(show.stdout).toContain('file_ticket');
    },
    180_000,
  );
});
