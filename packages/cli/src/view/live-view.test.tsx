import { readFile } from 'node:fs/promises';
import { type AgateEvent, createSession } from '@agate/core';
import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import NotesAgent from '../__fixtures__/notes-agent.js';
import { scriptedModelFrom, scriptSchema } from '../run/scripted-file.js';
import { RunView } from './live-view.js';
import { sessionFacts } from './start-live-view.js';
import { initialView, type RunViewState, reduceView } from './view-state.js';

const SCRIPT = new URL('../__fixtures__/finish-early.json', import.meta.url);

/** Runs the fixture agent on its script and returns every view state the live view would show. */
async function scriptedRunViews(): Promise<RunViewState[]> {
  const script = scriptSchema.parse(JSON.parse(await readFile(SCRIPT, 'utf8')));
  const session = createSession(createElement(NotesAgent), { model: scriptedModelFrom(script) });
  let view = initialView();
  const views: RunViewState[] = [];
  session.subscribe((event: AgateEvent) => {
    view = reduceView(view, event);
    if (event.type === 'model:request' || event.type === 'tick:end' || event.type === 'run:end') {
      view = reduceView(view, sessionFacts(session));
    }
    views.push(view);
  });
  await session.run();
  session.dispose();
  return views;
}

let unmount: (() => void) | undefined;
afterEach(() => unmount?.());

describe('the live view of a scripted run', () => {
  it('shows streaming text, a tool error, a gate refusing the exit, and the completed run', async () => {
    const views = await scriptedRunViews();
    const first = views[0];
    if (first === undefined) throw new Error('no events');
    const ink = render(<RunView view={first} />);
    unmount = ink.unmount;
    const frames: string[] = [];
    for (const view of views) {
      ink.rerender(<RunView view={view} />);
      frames.push(ink.lastFrame() ?? '');
    }

    // Streaming: a frame shows the first reply part-way, before its last words arrived.
    expect(frames.some((f) => f.includes('model: Let me') && !f.includes('tool first.'))).toBe(
      true,
    );
    // While the tool runs, its call is shown without a result.
    const running = frames.find((f) => f.includes('→ flaky {}') && !f.includes('✗'));
    expect(running).toBeDefined();

    const last = frames.at(-1) ?? '';
    expect(last).toContain('── tick 1 ──');
    expect(last).toContain('model: Let me try the flaky tool first.');
    expect(last).toContain('✗ Tool "flaky" failed: the disk is full');
    expect(last).toContain('gate note-saved: deferred → active (by runtime)');
    expect(last).toMatch(
      /exit refused: Gate "note-saved" was deferred, now active again \(refusal 1/,
    );
    expect(last).toContain('← Saved note 1: hello');
    expect(last).toContain('gate note-saved: active → inactive (by host)');
    expect(last).toContain('model: Saved the note. Done.');
    expect(last).toContain('gates: note-saved inactive');
    expect(last).toMatch(/completed · 4 ticks · \d+ tokens/);
    // Each tick is printed once, in order.
    const ticks = [...last.matchAll(/── tick (\d+) ──/g)].map((m) => m[1]);
    expect(ticks).toEqual(['1', '2', '3', '4']);
  });

  it('shows the gate as engaged (deferred) from the first model call, before any event changed it', async () => {
    const views = await scriptedRunViews();
    const firstRequest = views.find((v) => v.tick === 1 && v.gates['note-saved'] !== undefined);
    expect(firstRequest?.gates['note-saved']).toEqual({
      state: 'deferred',
      blocks: 0,
      maxBlocks: 5,
    });
  });
});
