import { readFile } from 'node:fs/promises';
import { type AgateEvent, createMemoryStore, createSession } from '@agate/core';
import { scriptedModel } from '@agate/testing';
import { render } from 'ink-testing-library';
import { createElement, type ReactElement } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import BudgetedAgent from '../__fixtures__/budgeted-agent.js';
import CheckpointAgent from '../__fixtures__/checkpoint-agent.js';
import NotesAgent from '../__fixtures__/notes-agent.js';
import VerdictAgent from '../__fixtures__/verdict-agent.js';
import { scriptedModelFrom, scriptSchema } from '../run/scripted-file.js';
import { RunView } from './live-view.js';
import { sessionFacts } from './start-live-view.js';
import { initialView, type RunViewState, reduceView } from './view-state.js';

const SCRIPT = new URL('../__fixtures__/finish-early.json', import.meta.url);

/** Runs a fixture agent on a script and returns every view state the live view would show. */
async function scriptedRunViews(
  agent: () => ReactElement = NotesAgent,
  scriptFile: URL = SCRIPT,
): Promise<RunViewState[]> {
  const script = scriptSchema.parse(JSON.parse(await readFile(scriptFile, 'utf8')));
  const session = createSession(createElement(agent), {
    model: scriptedModelFrom(script, scriptedModel),
    store: createMemoryStore(),
    // As `agate run` does for the live view: it shows text as it streams.
    streaming: true,
  });
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

/** Renders every view state in turn, as the live view does; returns each frame. */
function frames(views: readonly RunViewState[]): string[] {
  const first = views[0];
  if (first === undefined) throw new Error('no events');
  const ink = render(<RunView view={first} />);
  unmount = ink.unmount;
  return views.map((view) => {
    ink.rerender(<RunView view={view} />);
    return ink.lastFrame() ?? '';
  });
}

describe('the live view of a scripted run', () => {
  it('shows streaming text, a tool error, a gate refusing the exit, and the completed run', async () => {
    const all = frames(await scriptedRunViews());

    // Streaming: a frame shows the first reply part-way, before its last words arrived.
    expect(all.some((f) => f.includes('model: Let me') && !f.includes('tool first.'))).toBe(true);
    // While the tool runs, its call is shown without a result.
    const running = all.find((f) => f.includes('→ flaky {}') && !f.includes('✗'));
    expect(running).toBeDefined();
    // A running tool says so (and for how long, once a second has passed).
    expect(running).toContain('… running');

    const last = all.at(-1) ?? '';
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

  it('shows a tool call refused at a pending checkpoint, the checkpoint, and the run waiting for approval', async () => {
    const views = await scriptedRunViews(
      CheckpointAgent,
      new URL('../__fixtures__/submit-then-write.json', import.meta.url),
    );
    const last = frames(views).at(-1) ?? '';
    expect(last).toContain('→ save_note {"text":"hello"}\n  ← Saved: hello');
    expect(last).toContain('checkpoint T-1 submitted: Saved the hello note.');
    expect(last).toContain(
      '→ save_note {"text":"bye"}\n  ⊘ refused by checkpoint: Execution blocked. Supervisor must approve checkpoint T-1.',
    );
    // In the order it happened: the submission, then the call the pending checkpoint refused.
    expect(last).toMatch(
      /→ submit_checkpoint[^\n]*\n[^\n]*\n(?:[^\n]*\n)*?checkpoint T-1 submitted[\s\S]*checkpoint T-1 pending[\s\S]*→ save_note \{"text":"bye"\}/,
    );
    // Going pending shows its cause and the reason the supervisor sees.
    expect(last).toContain('checkpoint T-1 pending (submit): submitted: Saved the hello note.');
    expect(last).toContain('checkpoints: T-1 pending');
    expect(last).toMatch(/awaiting-approval — Checkpoint "T-1" is awaiting supervisor approval/);
  });

  it("shows the ContinueGate's last decision, its budget use, and the restore points it saves", async () => {
    const views = await scriptedRunViews(BudgetedAgent);
    const all = frames(views);
    expect(all.some((f) => /restore point [0-9a-f-]+@tick-2 saved \(step 2\)/.test(f))).toBe(true);
    const last = all.at(-1) ?? '';
    expect(last).toContain('ContinueGate: throttle — budget slope 0.6201 per step');
    expect(last).toContain('ContinueGate: waiting 10 ms (throttle)');
    // The panel, unwrapped: before tick 4, 3 steps done, 2 of 10 tool calls used.
    expect(last.replace(/[│\s]+/g, ' ')).toContain(
      'ContinueGate: throttle at step 3 · used 583 tokens, 2 tool calls · left 8 tool calls · checkpoint in 1 steps · budget slope 0.6201 per step',
    );
  });

  it("shows a refused final answer as refused, then the accepted one and <Output>'s object", async () => {
    const views = await scriptedRunViews(
      VerdictAgent,
      new URL('../__fixtures__/verdict.json', import.meta.url),
    );
    const last = frames(views).at(-1) ?? '';
    expect(last).toContain(
      '→ final_answer {"verdict":"approve","issues":[]}\n  ✗ Not accepted: Gate "change-read" was deferred, now active again (refusal 1 of 5)',
    );
    expect(last).not.toContain('Final answer received.');
    // The accepted one reads as the model read it too (what `agate show` prints).
    expect(last).toMatch(
      /→ final_answer \{"verdict":"request-changes"[^\n]*\n {2}← Final answer accepted\./,
    );
    expect(views.at(-1)?.end?.output).toEqual({
      verdict: 'request-changes',
      issues: ['a / 0 now returns 0 silently'],
    });
    // The object in the panel, as pretty JSON.
    expect(last.replace(/│/g, '')).toMatch(
      /output:\s+\{\s+"verdict": "request-changes",\s+"issues": \[\s+"a \/ 0 now returns 0 silently"\s+\]\s+\}/,
    );
  });
});
