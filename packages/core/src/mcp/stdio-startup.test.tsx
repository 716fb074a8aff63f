/**
 * Issue 39 item 6: a stdio MCP server starts as it would in a terminal. Real child processes:
 * the fixture server (official SDK) reports the environment it got, and servers that never
 * answer show what a handshake time-out says about them.
 */

import { scaledLimit, scriptedModel } from '@agate/testing';
import {
  DEFAULT_INHERITED_ENV_VARS,
  getDefaultEnvironment,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { call, FaultAgent, toolOutputs } from '../faults/harness.js';
import { createSession, McpServer } from '../index.js';
import { fixture } from './__fixtures__/servers.js';
import { SDK_INHERITED_ENV, serverEnvironment, TERMINAL_ENV } from './server-environment.js';

const TERMINAL = {
  NODE_EXTRA_CA_CERTS: '/etc/ssl/company-ca.pem',
  HTTP_PROXY: 'http://proxy.internal:3128',
  HTTPS_PROXY: 'http://proxy.internal:3128',
  NO_PROXY: 'localhost,127.0.0.1,.internal',
  http_proxy: 'http://lower.internal:3128',
  https_proxy: 'http://lower.internal:3128',
  no_proxy: 'localhost',
};
const SECRETS = { OPENAI_API_KEY: 'sk-not-for-servers', AGATE_APPROVAL_KEY: 'not-for-servers' };

const saved = new Map<string, string | undefined>();
function setEnv(values: Record<string, string>): void {
  for (const [key, value] of Object.entries(values)) {
    if (!saved.has(key)) saved.set(key, process.env[key]);
    process.env[key] = value;
  }
}
afterEach(() => {
  for (const [key, value] of saved) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  saved.clear();
});

describe("a stdio server's environment", () => {
  it('has the proxy variables (both spellings), NODE_EXTRA_CA_CERTS, PATH and HOME, its own env, and no keys', async () => {
    setEnv({ ...TERMINAL, ...SECRETS });
    const names = [...Object.keys(TERMINAL), ...Object.keys(SECRETS), 'PATH', 'HOME', 'OWN'];
    const model = scriptedModel([call({ names }, 'env'), 'Done.']);
    const session = createSession(
      <FaultAgent
        extra={
          <McpServer
            name="fixture"
            command={process.execPath}
            args={[fixture('fixture-server.mjs')]}
            env={{ OWN: 'given', HTTPS_PROXY: 'http://own-proxy:8080' }}
          />
        }
      />,
      { model },
    );
    const result = await session.run();
    expect(result.status, result.reason).toBe('completed');
    const [output] = toolOutputs(session) as [Array<{ text: string }>];
    expect(JSON.parse(output[0]?.text ?? '')).toEqual({
      ...TERMINAL,
      // Its own env comes last: it overrides an inherited variable.
      HTTPS_PROXY: 'http://own-proxy:8080',
      OWN: 'given',
      PATH: process.env.PATH,
      HOME: process.env.HOME,
    });
    session.dispose();
  });

  it("passes everything the MCP SDK's getDefaultEnvironment passes (the list is the SDK's, per platform)", () => {
    const platform = process.platform === 'win32' ? 'win32' : 'other';
    expect(SDK_INHERITED_ENV[platform]).toEqual(DEFAULT_INHERITED_ENV_VARS);
    expect(serverEnvironment(process.env)).toMatchObject(getDefaultEnvironment());
  });

  it('takes the Windows list on Windows, and skips exported shell functions as the SDK does', () => {
    const parent = {
      SYSTEMROOT: 'C:\\Windows',
      HOME: '/home/ana',
      PATH: '/usr/bin',
      TMPDIR: '() { evil; }',
      https_proxy: 'http://proxy:3128',
    };
    expect(serverEnvironment(parent, {}, 'win32')).toEqual({
      SYSTEMROOT: 'C:\\Windows',
      PATH: '/usr/bin',
      https_proxy: 'http://proxy:3128',
    });
    expect(serverEnvironment(parent, {}, 'linux')).toEqual({
      HOME: '/home/ana',
      PATH: '/usr/bin',
      https_proxy: 'http://proxy:3128',
    });
    expect(TERMINAL_ENV).toEqual(expect.arrayContaining(Object.keys(TERMINAL)));
  });
});

describe('a server that does not answer the handshake', () => {
  // Scaled: the server must start and write its stderr lines inside the limit on a loaded machine.
  const connectTimeoutMs = scaledLimit(1_500);
  const silent = (lines: number) => (
    <FaultAgent
      extra={
        <McpServer
          name="silent"
          command={process.execPath}
          args={[fixture('silent-server.mjs'), String(lines)]}
          connectTimeoutMs={connectTimeoutMs}
        />
      }
    />
  );

  it('is named with the tail of its stderr (the last lines, not the first)', async () => {
    const session = createSession(silent(400), { model: scriptedModel(['Done.']) });
    const result = await session.run();
    expect(result.status).toBe('error');
    expect(result.reason).toContain(
      `did not answer the MCP handshake within ${connectTimeoutMs} ms`,
    );
    expect(result.reason).toContain('Its stderr ended with:\n');
    expect(result.reason).toContain('  | silent server line 400');
    expect(result.reason).not.toContain('| silent server line 1\n');
    session.dispose();
  });

  it('says so when it wrote nothing to stderr', async () => {
    const session = createSession(silent(0), { model: scriptedModel(['Done.']) });
    const result = await session.run();
    expect(result.status).toBe('error');
    expect(result.reason).toContain(
      `did not answer the MCP handshake within ${connectTimeoutMs} ms.\nIt wrote nothing to stderr.\nCheck that the command runs on its own`,
    );
    session.dispose();
  });
});
