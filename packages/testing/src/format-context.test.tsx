import { Ephemeral, Section, System, Timeline, Tool, User, useTimeline } from '@agate/core';
import type { CompiledContext } from '@agate/core/guards';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatContext } from './format-context.js';
import { renderContext } from './render-context.js';
import { agateSerializer } from './serializer.js';

expect.addSnapshotSerializer(agateSerializer);

function Progress() {
  const timeline = useTimeline();
  const calls = timeline.filter((m) => m.role === 'tool').length;
  return <Ephemeral source="progress">{`Tool rounds so far: ${calls}. Keep going.`}</Ephemeral>;
}

function FileAgent(props: { task: string }) {
  return (
    <>
      <System>
        You are a careful coding agent working in a small repository.
        <Section title="Rules">
          Read a file before you edit it.
          <Section title="Edits">Keep edits small and explain each one.</Section>
        </Section>
      </System>
      <User>{props.task}</User>
      <Timeline />
      <Progress />
      <Tool
        name="read_file"
        description="Read a UTF-8 text file from the repository."
        input={z.object({ path: z.string(), maxBytes: z.number().int().optional() })}
        execute={({ path }) => `contents of ${path}`}
      />
      <Tool
        name="write_file"
        description={'Write a file.\nOverwrites it if it exists.'}
        input={z.object({
          path: z.string(),
          content: z.string(),
          mode: z.enum(['create', 'overwrite']),
        })}
        execute={() => 'written'}
      />
      <Tool name="list_files" input={z.object({ dirs: z.array(z.string()) })} execute={() => []} />
    </>
  );
}

const seededTimeline: ModelMessage[] = [
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'I should look at the file first.' },
      { type: 'text', text: 'Reading the config.' },
      {
        type: 'tool-call',
        toolCallId: 'call-1',
        toolName: 'read_file',
        input: { path: 'config.json' },
      },
      { type: 'tool-call', toolCallId: 'call-2', toolName: 'read_file', input: { path: 404 } },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'call-1',
        toolName: 'read_file',
        output: { type: 'json', value: { port: 8080, debug: false } },
      },
      {
        type: 'tool-result',
        toolCallId: 'call-2',
        toolName: 'read_file',
        output: {
          type: 'error-text',
          value:
            'Invalid arguments for tool "read_file":\n✖ Invalid input: expected string\n  → at path',
        },
      },
    ],
  },
  {
    role: 'assistant',
    content: [{ type: 'text', text: 'The port is 8080.\nI will change it now.' }],
  },
];

function realisticContext(): CompiledContext {
  return renderContext(<FileAgent task="Change the port in config.json to 9090." />, {
    timeline: seededTimeline,
  });
}

describe('formatContext', () => {
  it('snapshots a realistic agent as readable text', () => {
    expect(realisticContext()).toMatchSnapshot();
  });

  it('is stable: the same input gives the same string', () => {
    const a = formatContext(realisticContext());
    const b = formatContext(realisticContext());
    expect(a).toBe(b);
    expect(formatContext(realisticContext())).toBe(a);
  });

  it('lays out sections in request order and omits empty ones', () => {
    const text = formatContext(realisticContext());
    const headings = text.split('\n').filter((line) => line.startsWith('=== '));
    expect(headings).toEqual([
      '=== system ===',
      '=== messages (4) ===',
      '=== ephemeral (1) ===',
      '=== tools (3) ===',
    ]);
    expect(formatContext(renderContext(<System>only</System>))).toBe('=== system ===\nonly');
    expect(formatContext(renderContext(null))).toBe('');
  });

  it('writes tool results and errors on their own lines, indenting continuations', () => {
    const text = formatContext(realisticContext());
    expect(text).toContain('[tool] read_file#call-1 -> {"port":8080,"debug":false}');
    expect(text).toContain(
      '[tool] read_file#call-2 error Invalid arguments for tool "read_file":\n  ✖ Invalid input',
    );
    expect(text).toContain('[assistant] The port is 8080.\n  I will change it now.');
  });

  it('leaves no trailing whitespace on blank lines inside a message', () => {
    const text = formatContext(
      renderContext(
        <User>
          Fix the bug.
          <Section title="Steps">Run the tests.</Section>
        </User>,
      ),
    );
    expect(text).toBe('=== messages (1) ===\n[user] Fix the bug.\n\n  ## Steps\n  Run the tests.');
    expect(text).not.toMatch(/[ \t]$/m);
  });
});

describe('agateSerializer', () => {
  it('applies only to compiled contexts', () => {
    const context = realisticContext();
    expect(agateSerializer.test(context)).toBe(true);
    // A copy loses the brand: it is an ordinary object again.
    expect(agateSerializer.test({ ...context })).toBe(false);
    expect(agateSerializer.test({ system: '', messages: [] })).toBe(false);
    expect(agateSerializer.test('=== system ===')).toBe(false);
    expect(agateSerializer.test(null)).toBe(false);
  });

  it('stores a compiled context as formatContext text and leaves other values alone', () => {
    const context = renderContext(
      <>
        <System>Be brief.</System>
        <User>hi</User>
      </>,
    );
    expect(context).toMatchInlineSnapshot(`
      === system ===
      Be brief.

      === messages (1) ===
      [user] hi
    `);
    expect({ plain: 'object' }).toMatchInlineSnapshot(`
      {
        "plain": "object",
      }
    `);
  });
});
