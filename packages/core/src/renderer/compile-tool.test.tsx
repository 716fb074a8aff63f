import { scriptedModel } from '@agate/testing';
import type { ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineToolProp } from '../entries/guards.js';
import { createSession, Tool, User } from '../index.js';

declare module '../components/tool.js' {
  interface ToolGuardProps<I, O> {
    /** A test family's prop, declared after a tool with it was compiled. */
    lateTag?: string;
  }
}

const noInput = z.object({});
const look = () => 'seen';

const toolsOf = (tools: ReactNode) =>
  createSession(
    <>
      <User>Go.</User>
      {tools}
    </>,
    { model: scriptedModel([]) },
  ).render().tools;

describe('compiled tools are kept per process', () => {
  it('gives two sessions with the same tool props the same compiled tool', () => {
    const [a] = toolsOf(<Tool name="look" description="Look." input={noInput} execute={look} />);
    const [b] = toolsOf(<Tool name="look" description="Look." input={noInput} execute={look} />);
    expect(a).toBeDefined();
    expect(b).toBe(a);
  });

  it('keeps tools that share one execute apart, each compiled once, however many there are', () => {
    const names = Array.from({ length: 40 }, (_, i) => `tool_${i}`);
    const all = () =>
      toolsOf(names.map((name) => <Tool key={name} name={name} input={noInput} execute={look} />));
    const first = all();
    const second = all();
    expect(first.map((t) => t.name)).toEqual(names);
    expect(second.every((tool, i) => tool === first[i])).toBe(true);
  });

  it('compiles again when any prop differs, though the execute is the same', () => {
    const [a] = toolsOf(<Tool name="look" description="Look." input={noInput} execute={look} />);
    const [b] = toolsOf(<Tool name="look" description="Peek." input={noInput} execute={look} />);
    const [c] = toolsOf(<Tool name="peek" description="Look." input={noInput} execute={look} />);
    expect(b).not.toBe(a);
    expect(b?.description).toBe('Peek.');
    expect(c).not.toBe(a);
    expect(c?.name).toBe('peek');
  });

  it('compiles again after a guard prop is declared, so the new prop reaches guards', () => {
    const element = <Tool name="look" input={noInput} execute={look} lateTag="x" />;
    const [before] = toolsOf(element);
    expect(before?.guard).toBeUndefined();
    defineToolProp('lateTag');
    const [after] = toolsOf(element);
    expect(after).not.toBe(before);
    expect(after?.guard).toEqual({ lateTag: 'x' });
  });
});
