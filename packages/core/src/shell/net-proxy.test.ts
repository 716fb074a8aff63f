/**
 * The allow-list proxy against real loopback servers (issue 48, item 2): a request goes
 * through only to an entry's host and port, and addresses of this host are reached only
 * through an entry naming that exact host and port. Real sockets; the sandbox around it is in
 * escape.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAllowListProxy } from './net-proxy.js';

let dir: string;
const servers: Server[] = [];
const accepted = new Set<Socket>();
/** What each server says first; a reply containing it means the proxy got through. */
let appPort: number;
let dbPort: number;
let dbAccepted = 0;

async function listen(greeting: string, onAccept = () => {}): Promise<number> {
  const server = createServer((socket) => {
    onAccept();
    accepted.add(socket);
    socket.on('error', () => {});
    socket.end(`${greeting}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agate-net-proxy-'));
  appPort = await listen('APP ON THE ALLOWED PORT');
  // Stands for the host's PostgreSQL the reported attack reached.
  dbPort = await listen('DATABASE ON ANOTHER PORT', () => dbAccepted++);
});

afterAll(async () => {
  for (const socket of accepted) socket.destroy();
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
/** Starts a proxy for `allow`, sends `request` through it, and returns all it answered. */
async function through(
  allow: string[],
  request: string,
  resolve?: (host: string) => Promise<string[]>,
): Promise<string> {
  const socket = join(dir, `p${n++}.sock`);
  const proxy = await startAllowListProxy(socket, allow, resolve);
  try {
    return await new Promise<string>((done) => {
      let text = '';
      const client = connect(socket, () => client.write(request));
      client.setEncoding('utf8');
      client.on('data', (chunk: string) => {
        text += chunk;
      });
      client.on('close', () => done(text));
      client.on('error', () => done(text));
      setTimeout(() => client.destroy(), 5_000);
    });
  } finally {
    await proxy.close();
  }
}

const connectTo = (target: string) => `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`;

describe('the allow-list proxy, host and port (real loopback servers)', () => {
  it("with allow: ['localhost:PORT'], CONNECT to another local port is refused (the reported attack)", async () => {
    const before = dbAccepted;
    for (const target of [
      `localhost:${dbPort}`,
      `127.0.0.1:${dbPort}`,
      `[::ffff:127.0.0.1]:${dbPort}`,
      `LOCALHOST.:${dbPort}`,
    ]) {
      const reply = await through([`localhost:${appPort}`], connectTo(target));
      expect(reply, target).toMatch(/^HTTP\/1\.1 403 /);
      expect(reply, target).not.toContain('DATABASE');
    }
    const plain = await through(
      [`localhost:${appPort}`],
      `GET http://localhost:${dbPort}/ HTTP/1.1\r\nHost: localhost:${dbPort}\r\n\r\n`,
    );
    expect(plain).toMatch(/^HTTP\/1\.1 403 /);
    expect(dbAccepted).toBe(before);
  });

  it('an allowed host:port passes, by CONNECT and by a plain request', async () => {
    const tunnel = await through([`localhost:${appPort}`], connectTo(`localhost:${appPort}`));
    expect(tunnel).toContain('HTTP/1.1 200 Connection established');
    expect(tunnel).toContain('APP ON THE ALLOWED PORT');
    const plain = await through(
      [`127.0.0.1:${appPort}`],
      `GET http://127.0.0.1:${appPort}/ HTTP/1.1\r\nHost: 127.0.0.1:${appPort}\r\n\r\n`,
    );
    expect(plain).toContain('APP ON THE ALLOWED PORT');
  });

  it('a name that resolves to 127.0.0.1 is refused without an entry naming it with its port', async () => {
    // `localhost` resolves to loopback on every machine; an entry without a port is 80 and 443.
    const reply = await through(['localhost', '*.localhost'], connectTo('localhost:443'));
    expect(reply).toMatch(/^HTTP\/1\.1 403 /);
    expect(reply).toContain('resolves to');
    // The same through a name the test's DNS answers with 127.0.0.1 (a rebinding name), on the app's port.
    const rebinding = async (host: string) => (host === 'app.rebind.test' ? ['127.0.0.1'] : []);
    const wild = await through(
      [`*.rebind.test:${appPort}`],
      connectTo(`app.rebind.test:${appPort}`),
      rebinding,
    );
    expect(wild).toMatch(/^HTTP\/1\.1 403 /);
    expect(wild).not.toContain('APP ON THE ALLOWED PORT');
    // Named exactly with its port, it is reached: at the address checked (the name itself is
    // in no real DNS, so reaching the app shows the proxy did not look it up again).
    const exact = await through(
      [`app.rebind.test:${appPort}`],
      connectTo(`app.rebind.test:${appPort}`),
      rebinding,
    );
    expect(exact).toContain('APP ON THE ALLOWED PORT');
  });

  it('refuses malformed requests and ports', async () => {
    for (const request of [
      connectTo(`localhost:${appPort}0000`),
      connectTo('localhost'),
      connectTo(`user@localhost:${appPort}`),
      `GET https://localhost:${appPort}/ HTTP/1.1\r\n\r\n`,
      `GET /relative HTTP/1.1\r\n\r\n`,
    ]) {
      const reply = await through([`localhost:${appPort}`], request);
      expect(reply, request).toMatch(/^HTTP\/1\.1 (400|403) /);
      expect(reply, request).not.toContain('APP ON THE ALLOWED PORT');
    }
  });
});
