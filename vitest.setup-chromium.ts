import { type BrowserServer, chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { commandExists } from './packages/testing/src/system-requirements.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * The run's headless Chromium (`chromium.connect(inject('chromiumEndpoint'))`), or '' when
     * this setup found no Chromium. The browser test files skip on '' and never look for
     * Chromium themselves: the setup's answer is the run's one answer.
     */
    chromiumEndpoint: string;
  }
}

/**
 * The browsers the run can start, the first one there: Chromium's headless shell (Debian's
 * `chromium-headless-shell`, what Playwright itself runs for headless), then the full browser.
 * Same engine; the shell has no browser UI to keep up, and on a two-core machine the browser
 * tests cost a third less CPU in it (the docs site's 44 page loads: 29.9 s against 46.6 s).
 */
export const CHROMIUM_BINARIES = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'] as const;

/** What the browser test files tell `requireSystem`, beside their `tests` and `probe`. */
export const CHROMIUM_REQUIREMENT = {
  needs: `Chromium (${CHROMIUM_BINARIES.join(' or ')})`,
  enable: 'apt-get install -y chromium-headless-shell',
  debianPackage: 'chromium-headless-shell',
} as const;

/**
 * One headless Chromium for the browser tests of a run, not one per file: each file connects
 * to it and opens a context of its own (a fresh profile, as a new user data directory was).
 *
 * Whether Chromium is there is decided here, once. The test files used to look for
 * a Chromium again when they loaded, minutes later (the browser project runs last), and
 * the two answers could differ: where this setup found none (a Chromium installed while the run
 * went on, say by an apt-get that held the dpkg lock when `.ci/run` asked for it) it provided
 * '', the files then found one and connected to '' (`browserType.connect: Port should be >= 0
 * and < 65536. Received type string ('')`). Now the files skip on '' and only on ''.
 * A Chromium that is there but does not start fails the run here, with its error.
 *
 * The projects that use it (`browser`, `docs-site`) each run this setup; they share the one
 * Chromium, which the last of them to finish closes. The setups of a run all run in vitest's
 * main process, each project's through a module loader of its own, so the Chromium is kept on
 * `globalThis`, not in this module.
 */
export default async function setup(
  project: TestProject,
): Promise<(() => Promise<void>) | undefined> {
  const binary = CHROMIUM_BINARIES.find((path) => commandExists(path));
  if (binary === undefined) {
    project.provide('chromiumEndpoint', '');
    return undefined;
  }
  const run = globalThis as { [SHARED]?: SharedChromium };
  const shared = run[SHARED] ?? { server: launch(binary), users: 0 };
  run[SHARED] = shared;
  shared.users++;
  const server = await shared.server;
  project.provide('chromiumEndpoint', server.wsEndpoint());
  return async () => {
    shared.users--;
    if (shared.users > 0) return;
    delete run[SHARED];
    await server.close();
  };
}

const SHARED = Symbol.for('agate.test.chromium');

interface SharedChromium {
  server: Promise<BrowserServer>;
  /** The projects whose teardown has not run yet. */
  users: number;
}

async function launch(executablePath: string): Promise<BrowserServer> {
  const server = await chromium.launchServer({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const endpoint = server.wsEndpoint();
  if (!/^wss?:\/\/[^/]+:\d+\//.test(endpoint)) {
    await server.close();
    throw new Error(`Chromium started but gave no WebSocket endpoint to connect to: "${endpoint}"`);
  }
  return server;
}
