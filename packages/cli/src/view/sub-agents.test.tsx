import type { AgateEvent } from '@agate/core';
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { RunView } from './live-view.js';
import { createPlainPrinter } from './plain.js';
import { initialView, reduceView } from './view-state.js';

const at = ['reviewer#call_3'];
const events: AgateEvent[] = [
  { type: 'run:start', sessionId: 'p', tick: 0 },
  { type: 'tick:start', tick: 1 },
  {
    type: 'tool:call',
    tick: 1,
    toolCallId: 'call_3',
    toolName: 'reviewer',
    input: { task: 'review' },
  },
  { type: 'run:start', sessionId: 'p.reviewer-call_3', tick: 0, path: at },
  { type: 'tick:start', tick: 1, path: at },
  {
    type: 'gate:activated',
    tick: 1,
    gate: 'verification',
    from: 'inactive',
    by: 'runtime',
    path: at,
  },
  { type: 'tool:call', tick: 1, toolCallId: 'call-1', toolName: 'run_tests', input: {}, path: at },
];

describe('sub-agents in the run views', () => {
  it("the live view indents a child's ticks under its call and shows its gates", () => {
    const view = events.reduce(reduceView, initialView());
    expect(view.children?.['reviewer#call_3']?.gates).toEqual({
      verification: { state: 'active', blocks: 0 },
    });
    // The parent's own state is untouched by the child's events.
    expect(view.gates).toEqual({});
    expect(view.current?.entries).toHaveLength(1);
    const { lastFrame, unmount } = render(<RunView view={view} />);
    const frame = lastFrame() ?? '';
    unmount();
    expect(frame).toContain('▸ sub-agent reviewer#call_3: gates: verification active');
    const child = frame.split('\n').find((line) => line.includes('run_tests')) ?? '';
    expect(child.indexOf('→')).toBeGreaterThanOrEqual(4);
  });

  it('plain lines name the path and are indented', () => {
    let out = '';
    const print = createPlainPrinter((text) => {
      out += text;
    });
    for (const event of events) print(event);
    expect(out).toContain('  → reviewer {"task":"review"}\n');
    expect(out).toContain('    [reviewer#call_3] sub-agent started\n');
    expect(out).toContain(
      '    [reviewer#call_3] gate verification: inactive → active (by runtime)\n',
    );
  });
});
