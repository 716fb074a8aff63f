import { describe, expect, it } from 'vitest';
import type { GateDeclaration } from '../families/gates-and-knobs/gate-types.js';
import { type Declaration, DeclarationRegistry } from './declarations.js';

const gate = (name: string, description: string): GateDeclaration => ({
  kind: 'gate',
  name,
  descriptor: { description, instructions: 'Do it.' },
});

/** A declaring component: `get()` gives whatever its latest render declared. */
function declare(registry: DeclarationRegistry, first: Declaration) {
  let latest = first;
  const unregister = registry.register(first.name, () => latest);
  return {
    rerender: (next: Declaration) => {
      latest = next;
    },
    unregister,
  };
}

describe('DeclarationRegistry reads', () => {
  it('give the same lists while no declaration changed', () => {
    const registry = new DeclarationRegistry();
    declare(registry, gate('a', 'A'));
    declare(registry, { kind: 'guard', family: 'todos', name: 'todos:1', config: { x: 1 } });
    expect(registry.ofKind('gate')).toBe(registry.ofKind('gate'));
    expect(registry.all()).toBe(registry.all());
    expect(registry.ofFamily('todos')).toBe(registry.ofFamily('todos'));
    expect(registry.ofKind('knob')).toEqual([]);
  });

  it('see a re-render with new props at once (no stale declaration is kept)', () => {
    const registry = new DeclarationRegistry();
    const a = declare(registry, gate('a', 'first'));
    const todos = declare(registry, {
      kind: 'guard',
      family: 'todos',
      name: 'todos:1',
      config: { v: 1 },
    });
    const before = registry.ofKind('gate');
    a.rerender(gate('a', 'second'));
    expect(registry.ofKind('gate')).not.toBe(before);
    expect(registry.ofKind('gate').map((g) => g.descriptor.description)).toEqual(['second']);
    todos.rerender({ kind: 'guard', family: 'todos', name: 'todos:1', config: { v: 2 } });
    expect(registry.ofFamily('todos').map((d) => d.config)).toEqual([{ v: 2 }]);
  });

  it('follow mounts and unmounts', () => {
    const registry = new DeclarationRegistry();
    const a = declare(registry, gate('a', 'A'));
    const before = registry.ofKind('gate');
    const b = declare(registry, gate('b', 'B'));
    expect(registry.ofKind('gate').map((g) => g.name)).toEqual(['a', 'b']);
    expect(before.map((g) => g.name)).toEqual(['a']);
    a.unregister();
    b.unregister();
    expect(registry.ofKind('gate')).toEqual([]);
    expect(registry.all()).toEqual([]);
  });
});
