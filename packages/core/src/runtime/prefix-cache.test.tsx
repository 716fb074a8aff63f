import { scriptedModel } from '@agate/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Ephemeral,
  Section,
  System,
  Timeline,
  Tool,
  User,
  useTick,
  useTimeline,
} from '../index.js';
import { createSession } from './session.js';

/**
 * Provider prompt caches (Anthropic, OpenAI, Gemini, vLLM/llama.cpp prefix caching) only hit
 * when a request starts with exactly the bytes of an earlier one. Agate's promise: between
 * two ticks, everything except this tick's ephemeral content is a byte-identical prefix.
 */

function Clock() {
  const tick = useTick();
  const timeline = useTimeline();
  return (
    <Ephemeral source="clock">
      {`Tick ${tick}. ${timeline.length} messages so far. Budget left: ${100 - tick * 7}%.`}
    </Ephemeral>
  );
}

function Agent() {
  return (
    <>
      <System>
        You are a research agent.
        <Section title="Method">Search, then read, then answer with sources.</Section>
      </System>
      <User>Find the boiling point of water at 2,000 m.</User>
      <Timeline />
      <Clock />
      <Tool
        name="search"
        description="Search the web"
        input={z.object({ query: z.string() })}
        execute={({ query }) => [`result for ${query}`]}
      />
      <Tool
        name="read"
        description="Read a page"
        input={z.object({ url: z.string().url() })}
        execute={({ url }) => ({ url, text: 'Water boils at about 93 °C at 2,000 m.' })}
      />
    </>
  );
}

const TICKS = 4;

async function runFourTicks() {
  const model = scriptedModel([
    { text: 'Searching.', toolCalls: [{ toolName: 'search', input: { query: 'boiling point' } }] },
    { toolCalls: [{ toolName: 'read', input: { url: 'https://example.org/water' } }] },
    { toolCalls: [{ toolName: 'read', input: { url: 'not a url' } }] },
    'About 93 °C (source: example.org).',
  ]);
  const session = createSession(<Agent />, { model });
  const result = await session.run();
  session.dispose();
  return { model, session, result };
}

describe('the request prefix stays byte-identical between ticks', () => {
  it('runs the scripted four ticks', async () => {
    const { model, result } = await runFourTicks();
    expect(result.status).toBe('completed');
    expect(model.calls).toHaveLength(TICKS);
  });

  it('keeps call i (minus its ephemeral message) as the exact start of call i+1', async () => {
    const { model } = await runFourTicks();
    for (let i = 0; i + 1 < model.calls.length; i++) {
      const current = model.calls[i]!.prompt;
      const next = model.calls[i + 1]!.prompt;
      const stable = current.slice(0, -1);
      const nextHead = next.slice(0, stable.length);
      expect(nextHead, `call ${i + 1} must start with call ${i}'s stable prefix`).toEqual(stable);
      expect(JSON.stringify(nextHead)).toBe(JSON.stringify(stable));
      expect(JSON.stringify(next).startsWith(JSON.stringify(stable).slice(0, -1))).toBe(true);
      // And the prefix really grew: the tick's assistant turn and tool result follow it.
      expect(next.length).toBeGreaterThan(current.length);
    }
  });

  it('sends the same tools, byte for byte, on every call', async () => {
    const { model } = await runFourTicks();
    const first = JSON.stringify(model.calls[0]!.tools);
    expect(model.calls[0]!.tools?.map((t) => t.name)).toEqual(['search', 'read']);
    for (const call of model.calls) expect(JSON.stringify(call.tools)).toBe(first);
  });

  it('puts the ephemeral text last in every request and never stores it', async () => {
    const { model, session } = await runFourTicks();
    const ephemeralTexts: string[] = [];
    model.calls.forEach((call, i) => {
      const last = call.prompt.at(-1);
      expect(last?.role).toBe('user');
      const part = last?.role === 'user' ? last.content[0] : undefined;
      const text = part?.type === 'text' ? part.text : '';
      expect(text).toMatch(new RegExp(`^Tick ${i + 1}\\. `));
      ephemeralTexts.push(text);
      // Nothing before the last message mentions it.
      expect(JSON.stringify(call.prompt.slice(0, -1))).not.toContain(`Tick ${i + 1}.`);
    });
    expect(new Set(ephemeralTexts).size).toBe(TICKS);

    const stored = JSON.stringify(session.state);
    for (const text of ephemeralTexts) expect(stored).not.toContain(text);
    expect(stored).not.toContain('Budget left');
  });

  it('starts every request with the system text, then the fixed messages, then the timeline', async () => {
    const { model } = await runFourTicks();
    const last = model.calls.at(-1)!.prompt;
    expect(last.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'user',
    ]);
    expect(last[0]).toEqual({
      role: 'system',
      content:
        'You are a research agent.\n\n## Method\nSearch, then read, then answer with sources.',
    });
  });
});
