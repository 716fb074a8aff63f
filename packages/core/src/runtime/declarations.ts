import type { KnobOptions } from '../gates/knob-types.js';
import type { GateDescriptor } from '../gates/types.js';
import { KnobDeclarationError } from './errors.js';

export interface KnobDeclaration {
  kind: 'knob';
  name: string;
  options: KnobOptions;
}

export interface GateDeclaration {
  kind: 'gate';
  name: string;
  descriptor: GateDescriptor;
}

/** Registry key of the ContinueGate; not a valid knob name, so it cannot collide with one. */
export const CONTINUE_GATE_KEY = '#continue-gate';

/** Registered by `<ContinueGate>`; the config type lives with the ContinueGate. */
export interface ContinueDeclaration<C = unknown> {
  kind: 'continue';
  name: typeof CONTINUE_GATE_KEY;
  config: C;
}

/**
 * Any other guard family's declaration (a checkpoint, a todo list, phase gates). Its registry
 * name is `<family>:<id>`, which no knob name can be, so families never collide with knobs.
 */
export interface GuardDeclaration<C = unknown> {
  kind: 'guard';
  family: string;
  name: string;
  config: C;
}

export type Declaration =
  | KnobDeclaration
  | GateDeclaration
  | ContinueDeclaration
  | GuardDeclaration;

interface Entry {
  id: number;
  get: () => Declaration;
}

/**
 * Knobs, gates and the ContinueGate register here from layout effects (mount → register,
 * unmount → unregister), keyed by name. Reading is by name, sorted, so nothing about exit
 * blocking depends on render or registration order.
 */
export class DeclarationRegistry {
  private readonly entries = new Map<string, Entry[]>();
  private nextId = 1;

  /** `get` returns the latest declaration so closures (activateWhen, ...) are never stale. */
  register(name: string, get: () => Declaration): () => void {
    const list = this.entries.get(name) ?? [];
    const existing = list[0]?.get();
    const incoming = get();
    if (existing && existing.kind !== incoming.kind) {
      throw new KnobDeclarationError(
        `"${name}" is declared both as a ${existing.kind} and as a ${incoming.kind}. ` +
          'Knob and gate names share one namespace (set_knob addresses them by name); rename one.',
      );
    }
    const entry: Entry = { id: this.nextId++, get };
    list.push(entry);
    this.entries.set(name, list);
    return () => {
      const current = this.entries.get(name);
      if (!current) return;
      const next = current.filter((e) => e.id !== entry.id);
      if (next.length === 0) this.entries.delete(name);
      else this.entries.set(name, next);
    };
  }

  /** Names declared by more than one mounted component (reported as a warning). */
  duplicates(): string[] {
    return [...this.entries].filter(([, list]) => list.length > 1).map(([name]) => name);
  }

  all(): Declaration[] {
    return [...this.entries.keys()]
      .sort()
      .map((name) => this.entries.get(name)?.[0]?.get())
      .filter((d): d is Declaration => d !== undefined);
  }

  knobs(): KnobDeclaration[] {
    return this.all().filter((d): d is KnobDeclaration => d.kind === 'knob');
  }

  gates(): GateDeclaration[] {
    return this.all().filter((d): d is GateDeclaration => d.kind === 'gate');
  }

  /**
   * A family's declarations in mount order (the order they first mounted, which is tree
   * order for elements mounted in one render), for families whose order matters (checkpoints).
   */
  ofFamily(family: string): GuardDeclaration[] {
    const found: Array<{ id: number; declaration: GuardDeclaration }> = [];
    for (const list of this.entries.values()) {
      const first = list[0];
      const declaration = first?.get();
      if (declaration?.kind === 'guard' && declaration.family === family) {
        found.push({ id: first!.id, declaration });
      }
    }
    return found.sort((a, b) => a.id - b.id).map((f) => f.declaration);
  }

  continueGate(): ContinueDeclaration | undefined {
    return this.all().find((d): d is ContinueDeclaration => d.kind === 'continue');
  }
}
