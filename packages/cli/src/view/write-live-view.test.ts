import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type AgateEvent, createMemoryStore, createSession } from '@agate/core';
import { scriptedModel } from '@agate/testing';
import { createElement } from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import NotesAgent from '../__fixtures__/notes-agent.js';
import { scriptedModelFrom, scriptSchema } from '../run/scripted-file.js';
import type { LiveView } from './start-live-view.js';

const PACKAGE = join(import.meta.dirname, '..', '..');
// Inside the package, so the bundle's shared imports (react, the reconciler) resolve as in dist/.
const OUT_DIR = join(PACKAGE, 'node_modules', '.cache', `live-view-bundle-${process.pid}`);
const OUT = join(OUT_DIR, 'start-live-view.js');

beforeAll(() => {
  mkdirSync(OUT_DIR, { recursive: true });
  execFileSync(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'write-live-view.ts'), OUT],
    {
      cwd: PACKAGE,
      stdio: 'pipe',
    },
  );
}, 60_000);
afterAll(() => rmSync(OUT_DIR, { recursive: true, force: true }));

/** A terminal-like stream that keeps what Ink writes. */
function capture(): { stream: NodeJS.WriteStream; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  Object.assign(stream, { columns: 100, rows: 40, isTTY: false });
  return { stream, text: () => chunks.join('') };
}

describe('the live view bundle (build step: write-live-view.ts)', () => {
  it('imports nothing but React, the reconciler, the core and Node built-ins: Ink and its tree are inside', () => {
    const code = readFileSync(OUT, 'utf8');
    const imported = new Set(
      [...code.matchAll(/^import\s[^'"]*["']([^'"]+)["']/gm)]
        .map((m) => m[1])
        .filter((s) => !s?.startsWith('node:')),
    );
    const shared = [
      'react',
      'react/jsx-runtime',
      'react-reconciler',
      'react-reconciler/constants.js',
    ];
    for (const specifier of imported) {
      expect(
        shared.includes(specifier ?? '') || specifier?.startsWith('@agate/core'),
        specifier,
      ).toBe(true);
    }
    expect(code).not.toMatch(/from ["']ink["']/);
    const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies)).not.toContain('ink');
  });

  it('carries the license of every package it bundles', () => {
    const licenses = readFileSync(`${OUT}.licenses.txt`, 'utf8');
    for (const name of ['ink@', 'es-toolkit@', 'yoga-layout@', 'wrap-ansi@'])
      expect(licenses).toContain(name);
  });

  it('renders a scripted run to a terminal stream', async () => {
    const { startLiveView } = (await import(OUT)) as {
      startLiveView: (stdout: NodeJS.WriteStream) => LiveView;
    };
    const script = scriptSchema.parse(
      JSON.parse(
        await readFile(new URL('../__fixtures__/finish-early.json', import.meta.url), 'utf8'),
      ),
    );
    const session = createSession(createElement(NotesAgent), {
      model: scriptedModelFrom(script, scriptedModel),
      store: createMemoryStore(),
      streaming: true,
    });
    // vitest's console stands in for the global one without its Console class, which Ink's
    // console patch builds on (a real process has it).
    const { Console: NodeConsole } = await import('node:console');
    const global = globalThis.console as Console & { Console?: typeof NodeConsole };
    global.Console ??= NodeConsole;
    const out = capture();
    const live = startLiveView(out.stream);
    session.subscribe((event: AgateEvent) => live.dispatch(event, session));
    const result = await session.run();
    await live.finish();
    session.dispose();
    expect(result.status).toBe('completed');
    expect(out.text()).toContain('── tick 1 ──');
    expect(out.text()).toContain('Tool "flaky" failed: the disk is full');
    expect(out.text()).toContain('completed · 4 ticks');
  });
});
