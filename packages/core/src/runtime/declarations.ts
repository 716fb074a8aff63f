import { KnobDeclarationError } from './runtime-errors.js';

/**
 * A guard family's declaration (a checkpoint, a todo list, phase gates). Its registry name is
 * `<family>:<id>`, which no knob name can be, so families never collide with knobs.
 */
export interface GuardDeclaration<C = unknown> {
  kind: 'guard';
  family: string;
  name: string;
  config: C;
}

/**
 * Every kind of declaration by its `kind`: families with declarations of their own shape add
 * theirs by augmenting this interface (the gates family: `knob` and `gate`; the ContinueGate:
 * `continue`; see guard-seam/built-in-family-types.ts), so the registry names no family.
 */
export interface DeclarationKinds {
  guard: GuardDeclaration;
}

export type Declaration = DeclarationKinds[keyof DeclarationKinds];

interface Entry {
  id: number;
  get: () => Declaration;
}

/**
 * Knobs, gates, the ContinueGate and the other families' declarations register here from layout
 * effects (mount → register, unmount → unregister), keyed by name. Reading is by name, sorted,
 * so nothing about exit blocking depends on render or registration order.
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
          'Declarations share one namespace (knobs and gates: set_knob addresses them by name); rename one.',
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

  /** The first declaration of every name of one kind, sorted by name (shared: do not change it). */
  ofKind<K extends keyof DeclarationKinds>(kind: K): readonly DeclarationKinds[K][] {
    this.all();
    return this.named!.derived(kind, ofKindIn) as readonly DeclarationKinds[K][];
  }

  /**
   * A family's declarations in mount order (the order they first mounted, which is tree
   * order for elements mounted in one render), for families whose order matters (checkpoints).
   */
  ofFamily(family: string): readonly GuardDeclaration[] {
    this.byMount ??= this.firsts().sort((a, b) => a.id - b.id);
    this.mounted = reuse(this.byMount, this.mounted);
    return this.mounted.derived(family, ofFamilyIn);
  }
}

/**
 * The declarations a list of entries gave, and lists derived from them by key (a family name
 * for the mount-order list; a declaration kind for the by-name one).
 */
class Derived {
  private readonly lists = new Map<string, readonly Declaration[]>();

  constructor(
    /** Each entry's `get()`, in entry order (undefined kept, so indexes match the entries). */
    readonly got: readonly (Declaration | undefined)[],
    readonly declarations: readonly Declaration[],
  ) {}

  /**
   * The list `make` derives for `key`, made once. `make` is a function made once (not a closure
   * per call): families read these lists several times a tick, and a closure per read was most
   * of what the registry allocated (issue 51 item 2).
   */
  derived<D extends Declaration>(
    key: string,
    make: (declarations: readonly Declaration[], key: string) => D[],
  ): readonly D[] {
    let list = this.lists.get(key);
    if (list === undefined) {
      list = make(this.declarations, key);
      this.lists.set(key, list);
    }
    return list as readonly D[];
  }
}

function ofKindIn(declarations: readonly Declaration[], kind: string): Declaration[] {
  return declarations.filter((d) => d.kind === kind);
}

function ofFamilyIn(declarations: readonly Declaration[], family: string): GuardDeclaration[] {
  return declarations.filter(
    (d): d is GuardDeclaration => d.kind === 'guard' && d.family === family,
  );
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
