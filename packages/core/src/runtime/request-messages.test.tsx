import { scriptedModel } from '@agate/testing';
import type { ModelMessage } from 'ai';
import { produce } from 'immer';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { run, System, Timeline, Tool, User } from '../index.js';
import { RequestFormCache } from './request-messages.js';

/** The forms a fresh session's cache makes (every message is new to it). */
const requestForms = (messages: readonly ModelMessage[]) => new RequestFormCache().of(messages);

function Agent() {
  return (
    <>
      <System>You add numbers.</System>
      <User>Add 2 and 3, then 4 and 5.</User>
      <Timeline />
      <Tool
        name="add"
        input={z.object({ a: z.number(), b: z.number() })}
        execute={({ a, b }) => a + b}
      />
    </>
  );
}

async function timeline(): Promise<readonly ModelMessage[]> {
  const model = scriptedModel([
    { text: 'First.', toolCalls: [{ toolName: 'add', input: { a: 2, b: 3 } }] },
    { toolCalls: [{ toolName: 'add', input: { a: 4, b: 5 } }] },
    'Done: 5 and 9.',
  ]);
  const result = await run(<Agent />, { model });
  expect(result.status).toBe('completed');
  return result.timeline;
}

const contentOf = (message: ModelMessage) => message.content as readonly unknown[];

describe('request forms of committed messages', () => {
  it('hands the AI SDK the same messages with unfrozen content arrays; the timeline stays frozen', async () => {
    const committed = await timeline();
    const forms = requestForms(committed);
    expect(forms).toEqual(committed);
    committed.forEach((message, i) => {
      const form = forms[i]!;
      expect(Object.isFrozen(message)).toBe(true);
      expect(Object.isFrozen(message.content)).toBe(true);
      expect(form).not.toBe(message);
      expect(Object.isFrozen(form.content)).toBe(false);
      // The parts are shared, not copied, and stay frozen.
      contentOf(form).forEach((part, j) => {
        expect(part).toBe(contentOf(message)[j]);
        expect(Object.isFrozen(part)).toBe(true);
      });
    });
    // Made once: the next tick gets the same objects.
    const cache = new RequestFormCache();
    const first = cache.of(committed);
    expect(first).toEqual(forms);
    const again = cache.of(committed.slice());
    for (let i = 0; i < forms.length; i++) expect(again[i]).toBe(first[i]);
  });

  it('leaves no trace in what callers see of the timeline', async () => {
    const committed = await timeline();
    for (const message of committed) expect(Object.keys(message)).toEqual(['role', 'content']);
    expect(JSON.parse(JSON.stringify(committed))).toEqual(committed);
    expect(structuredClone(committed)).toEqual(committed);
  });

  it('makes forms for frozen messages from elsewhere too (a seeded or restored timeline)', () => {
    const seeded = produce({ timeline: [] as ModelMessage[] }, (draft) => {
      draft.timeline.push({
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'add', input: { a: 1, b: 2 } }],
      });
    }).timeline;
    expect(Object.isFrozen(seeded[0]!.content)).toBe(true);
    const cache = new RequestFormCache();
    const [form] = cache.of(seeded);
    expect(form).toEqual(seeded[0]);
    expect(Object.isFrozen(form!.content)).toBe(false);
    expect(cache.of(seeded.slice())[0]).toBe(form);
  });

  it('unfreezes the content list of a tool result given as content parts (an MCP result), sharing its items', () => {
    const item = { type: 'text' as const, text: 'Echo: hi' };
    const seeded = produce({ timeline: [] as ModelMessage[] }, (draft) => {
      draft.timeline.push({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'echo',
            output: { type: 'content', value: [item] },
          },
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'add',
            output: { type: 'json', value: 3 },
          },
        ],
      });
    }).timeline;
    const [form] = requestForms(seeded);
    expect(form).toEqual(seeded[0]);
    const [mcp, json] = contentOf(form!) as Array<{ output: { value: unknown } }>;
    const [mcpBefore, jsonBefore] = contentOf(seeded[0]!) as Array<{ output: { value: unknown } }>;
    expect(Object.isFrozen(mcp!.output.value)).toBe(false);
    expect((mcp!.output.value as unknown[])[0]).toBe((mcpBefore!.output.value as unknown[])[0]);
    expect(Object.isFrozen(mcpBefore!.output.value)).toBe(true);
    expect(json).toBe(jsonBefore);
  });

  it('passes string contents and unfrozen messages through as they are', () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Hello.' },
      { role: 'assistant', content: [{ type: 'text', text: 'Hi.' }] },
    ];
    const forms = requestForms(messages);
    expect(forms[0]).toBe(messages[0]);
    expect(forms[1]).toBe(messages[1]);
  });
});

describe('RequestFormCache', () => {
  const user = (text: string): ModelMessage => ({ role: 'user', content: text });
  const assistant = (text: string): ModelMessage =>
    Object.freeze({
      role: 'assistant',
      content: Object.freeze([{ type: 'text', text }]),
    }) as unknown as ModelMessage;

  it('keeps the forms of the messages it saw and makes forms only for new ones', () => {
    const cache = new RequestFormCache();
    const a = user('task');
    const b = assistant('one');
    const first = cache.of([a, b]);
    expect(first).toEqual(requestForms([a, b]));
    const c = assistant('two');
    const second = cache.of([a, b, c]);
    expect(second).toEqual(requestForms([a, b, c]));
    // The forms of a and b are the very objects made last time.
    expect(second[1]).toBe(first[1]);
    // The same messages again: the same array.
    expect(cache.of([a, b, c])).toBe(second);
  });

  it('starts over from the first message that differs (trimmed or replaced history)', () => {
    const cache = new RequestFormCache();
    const a = user('task');
    const b = assistant('one');
    const c = assistant('two');
    cache.of([a, b, c]);
    const replaced = assistant('one, edited');
    expect(cache.of([a, replaced, c])).toEqual(requestForms([a, replaced, c]));
    expect(cache.of([c])).toEqual(requestForms([c]));
    expect(cache.of([])).toEqual([]);
  });

  it('keeps the forms of the messages that stay when the history is trimmed at its front or cut after its start', () => {
    const cache = new RequestFormCache();
    const task = user('task');
    const [a, b, c, d, e] = ['one', 'two', 'three', 'four', 'five'].map(assistant);
    const first = cache.of([a!, b!, c!]);
    // Trimmed at the front (maxTimelineMessages): b and c keep their forms, d gets one.
    const trimmed = cache.of([b!, c!, d!]);
    expect(trimmed).toEqual(requestForms([b!, c!, d!]));
    expect(trimmed[0]).toBe(first[1]);
    expect(trimmed[1]).toBe(first[2]);
    // A budget's cut after the task: the task stays, the kept tail keeps its forms.
    const withTask = cache.of([task, c!, d!]);
    const cut = cache.of([task, d!, e!]);
    expect(cut).toEqual(requestForms([task, d!, e!]));
    expect(cut[0]).toBe(withTask[0]);
    expect(cut[1]).toBe(withTask[2]);
    // Messages seen before, in another order, are not mistaken for the old run.
    expect(cache.of([e!, d!])).toEqual(requestForms([e!, d!]));
  });

  it('a later call does not change an array it returned before', () => {
    const cache = new RequestFormCache();
    const a = user('task');
    const first = cache.of([a]);
    cache.of([a, assistant('one')]);
    expect(first).toHaveLength(1);
  });
});
