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
  /**
   * The first entry of every name, by name and by mount order: read several times a tick by
   * every guard family, changed only by a mount or an unmount. Entries, not declarations, are
   * kept, so a read still calls `get()` and sees the latest props.
   */
  private byName: Entry[] | undefined;
  private byMount: Entry[] | undefined;
  private duplicated: readonly string[] | undefined;
  private changes = 0;
  /**
   * What the reads derived from the declarations `get()` gave last (by name, and by mount
   * order), kept while every entry still gives the same declaration object: a read calls each
   * `get()` and compares, instead of building new lists several times a tick in every family.
   */
  private named: Derived | undefined;
  private mounted: Derived | undefined;

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
    this.changed();
    return () => {
      const current = this.entries.get(name);
      if (!current) return;
      const next = current.filter((e) => e.id !== entry.id);
      if (next.length === 0) this.entries.delete(name);
      else this.entries.set(name, next);
      this.changed();
    };
  }

  /** Grows with every mount and unmount: a reader may keep what it derived while it is the same. */
  get version(): number {
    return this.changes;
  }

  private changed(): void {
    this.changes++;
    this.byName = undefined;
    this.byMount = undefined;
    this.duplicated = undefined;
    this.named = undefined;
    this.mounted = undefined;
  }

  private firsts(): Entry[] {
    return [...this.entries.values()].flatMap((list) => (list[0] ? [list[0]] : []));
  }

  /** Names declared by more than one mounted component (reported as a warning). */
  duplicates(): readonly string[] {
    this.duplicated ??= [...this.entries]
      .filter(([, list]) => list.length > 1)
      .map(([name]) => name);
    return this.duplicated;
  }

  /** The first declaration of every name, sorted by name. The list is shared: do not change it. */
  all(): readonly Declaration[] {
    this.byName ??= [...this.entries.keys()]
      .sort()
      .flatMap((name) => this.entries.get(name)?.slice(0, 1) ?? []);
    this.named = reuse(this.byName, this.named);
    return this.named.declarations;
  }

  knobs(): readonly KnobDeclaration[] {
    const all = this.all();
    return this.named!.derived('knobs', () =>
      all.filter((d): d is KnobDeclaration => d.kind === 'knob'),
    );
  }

  gates(): readonly GateDeclaration[] {
    const all = this.all();
    return this.named!.derived('gates', () =>
      all.filter((d): d is GateDeclaration => d.kind === 'gate'),
    );
  }

  /**
   * A family's declarations in mount order (the order they first mounted, which is tree
   * order for elements mounted in one render), for families whose order matters (checkpoints).
   */
  ofFamily(family: string): readonly GuardDeclaration[] {
    this.byMount ??= this.firsts().sort((a, b) => a.id - b.id);
    this.mounted = reuse(this.byMount, this.mounted);
    const { declarations } = this.mounted;
    return this.mounted.derived(family, () =>
      declarations.filter((d): d is GuardDeclaration => d.kind === 'guard' && d.family === family),
    );
  }

  continueGate(): ContinueDeclaration | undefined {
    return this.all().find((d): d is ContinueDeclaration => d.kind === 'continue');
  }
}

/**
 * The declarations a list of entries gave, and lists derived from them by key (a family name
 * for the mount-order list; `knobs` or `gates` for the by-name one).
 */
class Derived {
  private readonly lists = new Map<string, readonly Declaration[]>();

  constructor(
    /** Each entry's `get()`, in entry order (undefined kept, so indexes match the entries). */
    readonly got: readonly (Declaration | undefined)[],
    readonly declarations: readonly Declaration[],
  ) {}

  derived<D extends Declaration>(key: string, make: () => D[]): readonly D[] {
    let list = this.lists.get(key);
    if (list === undefined) {
      list = make();
      this.lists.set(key, list);
    }
    return list as readonly D[];
  }
}

/** `previous` while every entry still gives the declaration it gave then; else built anew. */
function reuse(entries: readonly Entry[], previous: Derived | undefined): Derived {
  if (previous !== undefined && previous.got.length === entries.length) {
    let same = true;
    for (let i = 0; i < entries.length && same; i++) same = entries[i]!.get() === previous.got[i];
    if (same) return previous;
  }
  const got = entries.map((e) => e.get() as Declaration | undefined);
  return new Derived(
    got,
    got.filter((d): d is Declaration => d !== undefined),
  );
}
