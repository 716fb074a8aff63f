import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { cleanEnv, ROOT } from './release/workspace.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * Where the docs site's build, started when the run starts, says how it ended: a GET to
     * this loopback URL is answered once the build has exited, with a `SiteBuildOutcome`.
     * '' when there is no Chromium to test the site in (nothing is built).
     */
    docsSiteBuild: string;
  }
}

/** What `GET inject('docsSiteBuild')` answers, once the build has exited. */
export interface SiteBuildOutcome {
  code: number | null;
  signal: string | null;
  /** The end of its stdout and stderr (what it said when it failed). */
  output: string;
}

/** The last this many characters of the build's output are kept (it can print a lot). */
const KEPT_OUTPUT = 64 * 1024;

/**
 * The docs site's build (VitePress, a minute of CPU on a fresh clone, reused while its inputs
 * are unchanged) started in the background when the run starts, not in the browser test's
 * `beforeAll`: that test runs in the last, serial group, where nothing else would overlap the
 * build. It runs with Chromium's setup first in this project's list: without a Chromium the
 * test skips, so nothing is built.
 *
 * In a process of its own, as before: Vite inside vitest's would resolve `vue` through
 * vitest's setup.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (project.getProvidedContext().chromiumEndpoint === '') {
    project.provide('docsSiteBuild', '');
    return async () => {};
  }
  const child = spawn(
    process.execPath,
    [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'docs/site/build.ts'), '--reuse'],
    { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-KEPT_OUTPUT);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const ended = new Promise<SiteBuildOutcome>((resolve) => {
    child.on('error', (error) => resolve({ code: null, signal: null, output: String(error) }));
    child.on('close', (code, signal) => resolve({ code, signal, output }));
  });
  // Answers each request when the build has ended: the test waits on that, not on a delay.
  const server = createServer((_request, response) => {
    void ended.then((outcome) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(outcome));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  project.provide('docsSiteBuild', `http://127.0.0.1:${port}/`);
  return async () => {
    // A run that ends (or is stopped) before the build does leaves no build behind.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await ended;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
}
