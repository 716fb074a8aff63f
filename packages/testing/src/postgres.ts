import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chownSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { requireSystem } from './system-requirements.js';

const run = promisify(execFile);

/**
 * A PostgreSQL server for tests: `DATABASE_URL` when it is set; a database of its own on the
 * test run's one server when the run started one (`AGATE_TEST_POSTGRES`, the repository's
 * vitest global setup); otherwise a private server started from the Debian `postgresql`
 * package in a temp directory (about 1 s).
 */
export interface TestPostgres {
  /** A connection string: `postgres://agate@127.0.0.1:PORT/postgres`. */
  readonly url: string;
  /** True when the server came from `DATABASE_URL` (stop and restart then do nothing). */
  readonly external: boolean;
  /**
   * The directory of a private server's Unix socket (`postgres://agate@/db?host=DIR&port=…`
   * reaches it); undefined for `DATABASE_URL` and the run's shared server.
   */
  readonly socketDir?: string;
  /** Stops a private server and removes its directory; safe to call twice. */
  stop(): Promise<void>;
  /**
   * Stops a private server (fast shutdown: open connections are cut) and starts it again on
   * the same port and data, for tests of a database that restarts under a running client.
   * `downForMs` keeps it down that long before the start.
   */
  restart(options?: { downForMs?: number }): Promise<void>;
}

export interface StartPostgresOptions {
  /**
   * Keep fsync on (and synchronous commits). Default false: tests are faster without it;
   * benchmarks of durability cost must pass true.
   */
  fsync?: boolean;
  /**
   * Ignore `DATABASE_URL` and the run's shared server and always start a private server: for
   * tests that restart or stop it under a running client.
   */
  private?: boolean;
}

/** The directory of the newest installed PostgreSQL's binaries, or undefined. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0] !== undefined) return join(root, versions[0], 'bin');
  }
  const onPath = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  const found = onPath.status === 0 ? onPath.stdout.trim() : '';
  return found === '' ? undefined : join(found, '..');
}

/**
 * True when `startPostgres` can give a server (`DATABASE_URL` set or PostgreSQL installed);
 * otherwise records the one skip line and returns false. Use as
 * `describe.skipIf(!requirePostgres('postgres store tests'))`.
 */
export function requirePostgres(tests: string): boolean {
  if (process.env.DATABASE_URL) return true;
  return requireSystem({
    tests,
    needs: 'PostgreSQL (initdb, pg_ctl)',
    enable: 'apt-get install -y postgresql, or set DATABASE_URL',
    debianPackage: 'postgresql',
    probe: () => postgresBinDir() !== undefined,
  });
}

/**
 * Starts (or takes from `DATABASE_URL`) a PostgreSQL server. Throws when neither is possible;
 * guard the suite with `requirePostgres` first. The role is `agate`, a superuser with trust
 * authentication on loopback only.
 */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<TestPostgres> {
  const external = process.env.DATABASE_URL;
  if (external && options.private !== true) {
    return {
      url: external,
      external: true,
      stop: async () => {},
      restart: async () => {},
    };
  }
  const shared = process.env[SHARED_POSTGRES_ENV];
  if (shared && options.private !== true && options.fsync !== true) return databaseOn(shared);
  return startPrivatePostgres(options);
}

/**
 * Set by the repository's vitest global setup (vitest.setup-postgres.ts) to the run's one
 * server: `startPostgres()` then gives each caller a fresh database on it rather than a server
 * of its own, so a test run starts PostgreSQL once, not once per file.
 */
export const SHARED_POSTGRES_ENV = 'AGATE_TEST_POSTGRES';

let databases = 0;

/**
 * A new, empty database on the run's shared server (`serverUrl` names its `postgres`
 * database): what a private server's `postgres` database was, without a server to start. The
 * server may still be starting (the global setup does not wait for it): connecting is retried.
 * `stop` leaves the database (the run's end stops the server), `restart` is refused.
 */
async function databaseOn(serverUrl: string): Promise<TestPostgres> {
  const name = `agate_${process.pid}_${databases++}_${Date.now().toString(36)}`;
  const psql = join(postgresBinDir() ?? '', 'psql');
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await run(psql, [serverUrl, '-qAtc', `create database ${name}`]);
      break;
    } catch (error) {
      const text = describe(error);
      const starting = /could not connect|Connection refused|starting up|No such file/i.test(text);
      if (!starting || Date.now() > deadline) {
        throw new Error(`Could not create a database on the test run's PostgreSQL: ${text}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url: serverUrl.replace(/\/postgres$/, `/${name}`),
    external: false,
    stop: async () => {},
    restart: async () => {
      throw new Error(
        "This database is on the test run's shared PostgreSQL, which one test may not restart: " +
          'start it with startPostgres({ private: true }).',
      );
    },
  };
}

/**
 * An initdb'd data directory for this PostgreSQL and user, made once per machine in the OS
 * temporary directory and copied for each private server: initdb is about 1 s of CPU, the
 * copy under a third of that, and the suite starts a few dozen. Made under a name of its own
 * and then renamed, so servers started at once never copy a half-made one.
 */
async function initializedDataDir(bin: string, asRoot: boolean): Promise<string | undefined> {
  const done = initdbTemplateDir(bin);
  if (existsSync(join(done, 'data', 'PG_VERSION'))) {
    // The temporary directory is shared with every local user, and the name is predictable: a
    // directory someone else made there could hold a postgresql.conf that runs their commands.
    // Used only when it is ours (or the server user's, which we made it for) and no one else
    // can write it; otherwise the caller runs initdb in its own directory, as without a copy.
    return ownedByUs(done, asRoot) ? join(done, 'data') : undefined;
  }
  const temp = mkdtempSync(`${done}.`);
  try {
    await initdbInto(temp, bin, asRoot);
    try {
      renameSync(temp, done);
    } catch (error) {
      // Another process made it first.
      if (!existsSync(join(done, 'data', 'PG_VERSION'))) throw error;
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  return join(done, 'data');
}

/** Where the initdb'd template for `bin` and this user is kept (internal; exported for its test). */
export function initdbTemplateDir(bin: string): string {
  const key = createHash('sha256')
    .update(`${bin}\n${process.getuid?.() ?? ''}\n`)
    .digest('hex')
    .slice(0, 12);
  return join(tmpdir(), `agate-pg-initdb-${key}`);
}

/** A directory (not a link) owned by this process's user or, as root, the `postgres` user, with mode 0700. */
function ownedByUs(dir: string, asRoot: boolean): boolean {
  const stat = lstatSync(dir);
  const owners = [process.getuid?.(), ...(asRoot ? [postgresId('-u')] : [])];
  return stat.isDirectory() && owners.includes(stat.uid) && (stat.mode & 0o077) === 0;
}

/** initdb into `dir`/data (`dir` made private by the caller), as the server's user. */
async function initdbInto(dir: string, bin: string, asRoot: boolean): Promise<void> {
  if (asRoot) chownSync(dir, postgresId('-u'), postgresId('-g'));
  const args = ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'agate', '--no-sync', '-E', 'UTF8'];
  const initdb = join(bin, 'initdb');
  await (asRoot
    ? run('runuser', ['-u', 'postgres', '--', initdb, ...args], { cwd: dir })
    : run(initdb, args, { cwd: dir }));
}

function postgresId(flag: '-u' | '-g'): number {
  return Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
}

/** Starts a server of its own (pg_ctl, on a copy of initdb's data) in a temp directory. */
export async function startPrivatePostgres(
  options: Omit<StartPostgresOptions, 'private'> & { maxConnections?: number } = {},
): Promise<TestPostgres> {
  const bin = postgresBinDir();
  if (bin === undefined) {
    throw new Error(
      'PostgreSQL is not installed: apt-get install -y postgresql (or set DATABASE_URL).',
    );
  }
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'agate-pg-'));
  if (asRoot) {
    // initdb refuses root; the server runs as the package's `postgres` user.
    chownSync(dir, postgresId('-u'), postgresId('-g'));
  }
  const pg = (tool: string, args: string[]) => {
    const file = join(bin, tool);
    return asRoot
      ? run('runuser', ['-u', 'postgres', '--', file, ...args], { cwd: dir })
      : run(file, args, { cwd: dir });
  };
  const data = join(dir, 'data');
  const fsync = options.fsync === true ? 'on' : 'off';
  let stopped = false;
  let port = 0;

  const start = async () => {
    await pg('pg_ctl', [
      '-D',
      data,
      '-w',
      '-t',
      '30',
      '-l',
      join(dir, 'log'),
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=${fsync} -c synchronous_commit=${fsync} -c full_page_writes=${fsync} -c max_connections=${options.maxConnections ?? 200}`,
      'start',
    ]);
  };
  const stopServer = async () => {
    await pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']).catch(() => {});
  };
  // A test process that dies without calling stop() must not leave a server behind.
  const onExit = () => {
    if (stopped) return;
    const file = join(bin, 'pg_ctl');
    const args = ['-D', data, '-m', 'immediate', 'stop'];
    spawnSync(asRoot ? 'runuser' : file, asRoot ? ['-u', 'postgres', '--', file, ...args] : args, {
      stdio: 'ignore',
      cwd: dir,
    });
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const template = await initializedDataDir(bin, asRoot);
    if (template === undefined) await initdbInto(dir, bin, asRoot);
    // As the server's user: the copy keeps the files' owner and the 0700 PostgreSQL requires.
    else
      await (asRoot
        ? run('runuser', ['-u', 'postgres', '--', 'cp', '-a', template, data], { cwd: dir })
        : run('cp', ['-a', template, data], { cwd: dir }));
    // The free port can be taken between the probe and the start; try a few.
    for (let attempt = 0; ; attempt++) {
      port = await freePort();
      try {
        await start();
        break;
      } catch (error) {
        if (attempt >= 3) throw error;
      }
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`Could not start a private PostgreSQL in ${dir}: ${describe(error)}`);
  }
  process.once('exit', onExit);

  return {
    url: `postgres://agate@127.0.0.1:${port}/postgres`,
    external: false,
    socketDir: dir,
    async stop() {
      if (stopped) return;
      stopped = true;
      process.off('exit', onExit);
      await stopServer();
      rmSync(dir, { recursive: true, force: true });
    },
    async restart({ downForMs = 0 } = {}) {
      if (stopped) throw new Error('This PostgreSQL was stopped; start a new one.');
      await stopServer();
      if (downForMs > 0) await new Promise((r) => setTimeout(r, downForMs));
      await start();
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const stderr = (error as { stderr?: unknown }).stderr;
    return typeof stderr === 'string' && stderr.trim() !== '' ? stderr.trim() : error.message;
  }
  return String(error);
}
