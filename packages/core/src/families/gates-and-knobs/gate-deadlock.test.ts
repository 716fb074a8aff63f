import { describe, expect, it } from 'vitest';
import { describeMissingTools, findMissingTools, toolsMentioned } from './gate-deadlock.js';
import type { GateDescriptor } from './gate-types.js';

const descriptor = (requiresTools?: string[], instructions = 'i'): GateDescriptor => ({
  description: 'd',
  instructions,
  ...(requiresTools ? { requiresTools } : {}),
});

describe('findMissingTools', () => {
  it('reports each gate whose required tools are not rendered, with only the missing ones', () => {
    const gates = [
      { name: 'none', descriptor: descriptor() },
      { name: 'ok', descriptor: descriptor(['run_tests']) },
      { name: 'partial', descriptor: descriptor(['run_tests', 'typecheck', 'lint']) },
    ];
    expect(findMissingTools(gates, new Set(['run_tests', 'read_file']))).toEqual([
      { gate: 'partial', tools: ['typecheck', 'lint'], source: 'declared' },
    ]);
    expect(findMissingTools(gates, new Set(['run_tests', 'typecheck', 'lint']))).toEqual([]);
  });

  it('without requiresTools, checks the tool names the instructions mention', () => {
    const gates = [
      { name: 'v', descriptor: descriptor(undefined, 'Run run_tests, then `lint_all`.') },
      { name: 'off', descriptor: descriptor([], 'Run run_tests first.') },
    ];
    expect(findMissingTools(gates, new Set(['lint_all']))).toEqual([
      { gate: 'v', tools: ['run_tests'], source: 'instructions' },
    ]);
    expect(findMissingTools(gates, new Set(['run_tests', 'lint_all']))).toEqual([]);
  });
});

describe('toolsMentioned', () => {
  it('finds snake_case words and backticked names with underscores, never set_knob', () => {
    expect(
      toolsMentioned(
        'VERIFICATION PENDING: run `run_tests` and type_check, then call set_knob. Plain words are ignored, as is `git`.',
      ),
    ).toEqual(['run_tests', 'type_check']);
  });
});

describe('describeMissingTools', () => {
  it('names the gate, the tools and the two fixes', () => {
    expect(
      describeMissingTools({ gate: 'verification', tools: ['run_tests'], source: 'declared' }),
    ).toBe(
      'Gate "verification" needs tool "run_tests" to be satisfied, but it is not rendered. Render the tool, or drop it from the gate\'s requiresTools.',
    );
    expect(describeMissingTools({ gate: 'v', tools: ['a', 'b'], source: 'declared' })).toContain(
      'needs tools "a", "b" to be satisfied, but they are not rendered',
    );
    expect(
      describeMissingTools({ gate: 'v', tools: ['run_tests'], source: 'instructions' }),
    ).toContain('Its instructions mention it.');
  });
});
