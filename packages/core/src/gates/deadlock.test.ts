import { describe, expect, it } from 'vitest';
import { describeMissingTools, findMissingTools } from './deadlock.js';
import type { GateDescriptor } from './types.js';

const descriptor = (requiresTools?: string[]): GateDescriptor => ({
  description: 'd',
  instructions: 'i',
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
      { gate: 'partial', tools: ['typecheck', 'lint'] },
    ]);
    expect(findMissingTools(gates, new Set(['run_tests', 'typecheck', 'lint']))).toEqual([]);
  });
});

describe('describeMissingTools', () => {
  it('names the gate, the tools and the two fixes', () => {
    expect(describeMissingTools({ gate: 'verification', tools: ['run_tests'] })).toBe(
      'Gate "verification" needs tool "run_tests" to be satisfied, but it is not rendered. Render the tool, or drop it from the gate\'s requiresTools.',
    );
    expect(describeMissingTools({ gate: 'v', tools: ['a', 'b'] })).toContain(
      'needs tools "a", "b" to be satisfied, but they are not rendered',
    );
  });
});
