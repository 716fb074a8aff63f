import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type GateDescriptor, run, System, Timeline, Tool, User, useGate } from '@agate/core';
import { scriptedModel } from '@agate/testing';
import { createElement, Fragment } from 'react';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

/**
 * The README's headline promise, kept: its first example's gate is taken from the README text
 * itself (the `gate({ … })` literal), and a model that calls set_knob and finishes without
 * passing tests cannot complete.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

async function readmeGate(): Promise<GateDescriptor> {
  const readme = await readFile(resolve(root, 'README.md'), 'utf8');
  const first = /```tsx\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const start = first.indexOf('gate({');
  const end = first.indexOf('\n});', start);
  expect(start, "the README's first example declares its gate with gate({ … })").toBeGreaterThan(0);
  const literal = first.slice(start + 'gate('.length, end + 2);
  // The literal is plain JavaScript (no type annotations), so it evaluates as written; the
  // tool it reads results of (`runTests`) is this test's run_tests.
  return new Function('runTests', `return (${literal});`)({
    name: 'run_tests',
    execute: () => undefined,
  }) as GateDescriptor;
}

function CodingAgent(props: { descriptor: GateDescriptor; testsPass: boolean }) {
  const v = useGate('verification', props.descriptor);
  return createElement(
    Fragment,
    null,
    createElement(System, null, 'You are a careful coding agent.'),
    createElement(User, null, 'Fix the failing test.'),
    createElement(Timeline),
    createElement(Tool, {
      name: 'write_file',
      input: z.object({ path: z.string(), content: z.string() }),
      execute: async () => 'written',
    }),
    createElement(Tool, {
      name: 'run_tests',
      input: z.object({}),
      execute: async () =>
        props.testsPass ? { exitCode: 0, output: 'ok' } : { exitCode: 1, output: 'FAIL' },
    }),
    v.element,
  );
}

const agent = (descriptor: GateDescriptor, testsPass: boolean) =>
  createElement(CodingAgent, { descriptor, testsPass });

const write = { toolName: 'write_file', input: { path: 'a.js', content: 'x' } };

describe("the README's first example", () => {
  it('is a gate only the host clears: set_knob is not offered, and clearing it by hand fails', async () => {
    const descriptor = await readmeGate();
    expect(descriptor.clearWhen).toBeTypeOf('function');
    expect(descriptor.clearableBy).toBeUndefined();
    const model = scriptedModel(
      [
        { toolCalls: [write] },
        {
          toolCalls: [{ toolName: 'set_knob', input: { name: 'verification', value: 'inactive' } }],
        },
        'Done, the tests pass.',
      ],
      { whenExhausted: 'repeat-last' },
    );
    const result = await run(agent(descriptor, true), { model, maxTicks: 12 });
    expect(result.status).toBe('blocked');
    expect(result.gates.verification).not.toBe('inactive');
    // set_knob was never offered to the model.
    expect(model.calls.every((c) => !(c.tools ?? []).some((t) => t.name === 'set_knob'))).toBe(
      true,
    );
  });

  it('completes once the tests ran and passed after the edit', async () => {
    const descriptor = await readmeGate();
    const model = scriptedModel([
      { toolCalls: [write] },
      { toolCalls: [{ toolName: 'run_tests', input: {} }] },
      'Fixed; the tests pass.',
    ]);
    const result = await run(agent(descriptor, true), { model });
    expect(result.status).toBe('completed');
  });

  it('does not complete when the tests ran and failed', async () => {
    const descriptor = await readmeGate();
    const model = scriptedModel(
      [{ toolCalls: [write] }, { toolCalls: [{ toolName: 'run_tests', input: {} }] }, 'Done.'],
      { whenExhausted: 'repeat-last' },
    );
    const result = await run(agent(descriptor, false), { model, maxTicks: 12 });
    expect(result.status).toBe('blocked');
  });
});
