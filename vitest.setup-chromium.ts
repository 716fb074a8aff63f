import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's headless Chromium (`chromium.connect(inject('chromiumEndpoint'))`); '' without one. */
    chromiumEndpoint: string;
  }
}

const CHROMIUM = '/usr/bin/chromium';

/**
 * One headless Chromium for the browser tests of a run, not one per file: each file connects
 * to it and opens a context of its own (a fresh profile, as a new user data directory was).
 * Without Chromium nothing starts and those tests skip (their `requireSystem` says so).
 */
export default async function setup(
  project: TestProject,
): Promise<(() => Promise<void>) | undefined> {
  if (!existsSync(CHROMIUM)) {
    project.provide('chromiumEndpoint', '');
    return undefined;
  }
  const server = await chromium.launchServer({
    executablePath: CHROMIUM,
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
  project.provide('chromiumEndpoint', server.wsEndpoint());
  return () => server.close();
}
