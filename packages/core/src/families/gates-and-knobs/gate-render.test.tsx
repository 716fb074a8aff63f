import { agateSerializer, renderContext } from '@agate/testing';
import type { ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  Ephemeral,
  Gate,
  gate,
  Knob,
  Section,
  System,
  Timeline,
  Tool,
  User,
  useGate,
  useKnob,
} from '../../index.js';
import type { SeedState } from '../../state/session-state.js';

expect.addSnapshotSerializer(agateSerializer);

const verification = gate({
  description: 'Verify your changes before completing',
  instructions: 'VERIFICATION PENDING: you changed files. Run the tests, then clear this gate.',
  activateWhen: (tick) => tick.toolCalls.some((c) => c.toolName === 'write_file'),
});

function Base(props: { children?: ReactNode }) {
  return (
    <>
      <System>You fix bugs in a small JavaScript project.</System>
      <User>Fix add() in math.js.</User>
      <Timeline />
      <Tool
        name="write_file"
        description="Write a file."
        input={z.object({ path: z.string(), content: z.string() })}
        execute={() => 'ok'}
      />
      {props.children}
    </>
  );
}

function Verified() {
  const v = useGate('verification', verification);
  return <Base>{v.element}</Base>;
}

const withGate = (state: 'active' | 'deferred', blocks = 0, knobs = {}): SeedState => ({
  guards: { gates: { knobs, gates: { verification: { state, blocks } } } },
});

function Guarded() {
  const tests = useGate('tests', {
    ...verification,
    description: 'Tests must pass',
    clearableBy: 'host',
    clearWhen: () => false,
  });
  return (
    <Base>
      {tests.element}
      <Gate
        name="review"
        description="A person reviews the change"
        instructions="Summarize the change for the reviewer."
        clearableBy="supervisor"
      />
    </Base>
  );
}

describe('a gate in each state', () => {
  it('inactive: no instructions, set_knob offered', () => {
    const context = renderContext(<Verified />);
    expect(context.ephemeral).toEqual([]);
    expect(context.tools.map((t) => t.name)).toEqual(['write_file', 'set_knob']);
    expect(context).toMatchSnapshot();
  });

  it('active: the instructions as ephemeral content', () => {
    const context = renderContext(<Verified />, withGate('active', 2));
    expect(context.ephemeral).toHaveLength(1);
    expect(context.ephemeral[0]?.source).toBe('gate:verification');
    expect(context.ephemeral[0]?.text).toContain('VERIFICATION PENDING');
    expect(context).toMatchSnapshot();
  });

  it('deferred: one line saying so, no instructions', () => {
    const context = renderContext(<Verified />, withGate('deferred'));
    expect(context.ephemeral.map((e) => e.text)).toEqual([
      'Gate "verification" is deferred: Verify your changes before completing. It still blocks finishing.',
    ]);
    expect(context).toMatchSnapshot();
  });

  it('the set_knob definition does not change with the gate state (prompt caches keep hitting)', () => {
    const describe = (state?: SeedState) =>
      renderContext(<Verified />, state).tools.find((t) => t.name === 'set_knob')?.description;
    expect(describe(withGate('active'))).toBe(describe());
    expect(describe(withGate('deferred'))).toBe(describe());
  });

  it('host and supervisor gates tell the model who clears them', () => {
    const context = renderContext(<Guarded />, {
      guards: {
        gates: {
          knobs: {},
          gates: { tests: { state: 'active', blocks: 0 }, review: { state: 'active', blocks: 1 } },
        },
      },
    });
    expect(context).toMatchSnapshot();
  });
});

function Agent() {
  return (
    <Base>
      <Knob name="mode" description="How to work" options={['plan', 'build']} initial="plan">
        {(mode) => (
          <System>
            <Section title="Mode">
              {mode === 'plan' ? 'Plan only: do not write files.' : 'Build: make the change.'}
            </Section>
          </System>
        )}
      </Knob>
      <Knob
        name="max_files"
        description="Most files you may change"
        schema={z.number().int().min(1).max(5)}
        initial={2}
      />
      <Gate name="verification" {...verification} />
    </Base>
  );
}

function Moded() {
  const [mode] = useKnob('mode', {
    description: 'plan first, then build',
    options: ['plan', 'build'],
    initial: 'plan',
  });
  return (
    <Base>
      <Ephemeral source="mode">{`Mode: ${mode}.`}</Ephemeral>
    </Base>
  );
}

describe('knobs', () => {
  it('useKnob with options: listed in set_knob with its value and allowed values', () => {
    expect(renderContext(<Moded />)).toMatchSnapshot('initial');
    expect(
      renderContext(<Moded />, { guards: { gates: { knobs: { mode: 'build' }, gates: {} } } }),
    ).toMatchSnapshot('set to build');
  });

  it('<Knob> with render-prop children, next to a gate, with a schema knob', () => {
    expect(renderContext(<Agent />, withGate('active', 0, { mode: 'build' }))).toMatchSnapshot();
  });

  it('no knob and no gate: no set_knob', () => {
    const context = renderContext(<Base />);
    expect(context.tools.map((t) => t.name)).toEqual(['write_file']);
    expect(context.knobs).toEqual([]);
    expect(context.gates).toEqual([]);
  });
});

function TwoGatesAsList() {
  const lint = useGate('lint', {
    description: 'Lint must be clean',
    instructions: 'Run the linter and fix what it reports.',
  });
  const v = useGate('verification', verification);
  return (
    <>
      <User>Fix it.</User>
      {[lint.element, v.element]}
    </>
  );
}

describe('gate elements in a list', () => {
  it('carry keys, so several can be rendered as an array without React key warnings', () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const ctx = renderContext(<TwoGatesAsList />, {
        guards: {
          gates: {
            knobs: {},
            gates: {
              lint: { state: 'active', blocks: 0 },
              verification: { state: 'active', blocks: 0 },
            },
          },
        },
      });
      expect(ctx.ephemeral.map((b) => b.source)).toEqual(['gate:lint', 'gate:verification']);
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
  });
});
