import { createServer, type Server } from 'node:net';
import { SnapshotError } from '@agate/core';
import { createSnapshot } from '@agate/core/stores';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from './postgres-store.js';

/** A backend message: its type byte, its length (itself included) and its body. */
const message = (type: string, body: Buffer) => {
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  return Buffer.concat([Buffer.from(type), length, body]);
};
const AUTHENTICATION_OK = message('R', Buffer.alloc(4));
const READY_FOR_QUERY = message('Z', Buffer.from('I'));
/** What a server stopping with `pg_ctl stop -m fast` sends each open connection. */
const TERMINATING = message(
  'E',
  Buffer.from('SFATAL\0VFATAL\0C57P01\0Mterminating connection due to administrator command\0\0'),
);

/**
 * A server that lets every connection in and, in the same packet as "ready", says it is
 * terminating it, then hangs up: the moment a real server shuts down just as a connection
 * opens, made certain. (A real PostgreSQL gives that interleaving only by chance.)
 */
let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((socket) => {
    socket.on('error', () => {});
    // The first packet is the startup message (no TLS asked for): answer it all at once.
    socket.once('data', () => {
      socket.end(Buffer.concat([AUTHENTICATION_OK, READY_FOR_QUERY, TERMINATING]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  url = `postgres://agate@127.0.0.1:${port}/agents`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const snapshot = createSnapshot('cut', { id: 'cut', status: 'running', timeline: [] });

// Without a listener on the new connection, the cut would be an uncaught exception here,
// which vitest reports as an error of this file.
describe('a connection cut as the pool hands it over', () => {
  it('fails the save with a typed error and does not crash the process (its own pool)', async () => {
    const store = createPostgresStore({ connectionString: url });
    try {
      const saving = store.save(snapshot);
      await expect(saving).rejects.toBeInstanceOf(SnapshotError);
      await expect(saving).rejects.toThrow(/connection to PostgreSQL was lost/);
    } finally {
      await store.close();
    }
  });

  it('fails the save with a typed error and does not crash the process (your pool)', async () => {
    const pool = new pg.Pool({ connectionString: url });
    // Idle connections are the pool owner's to hear, as node-postgres says.
    pool.on('error', () => {});
    const store = createPostgresStore({ pool });
    try {
      await expect(store.save(snapshot)).rejects.toBeInstanceOf(SnapshotError);
      await expect(store.load('cut')).rejects.toBeInstanceOf(SnapshotError);
    } finally {
      await pool.end();
    }
  });
});
