/**
 * Which call signatures the committed window (`progress.callSignatures`, up to 2,000 entries)
 * holds, kept in step with it as ticks append to it: the rework check asks every tick, and
 * building a set of the whole window each time made every tick cost more as the run went on.
 * Counts, not a set, because a signature may occur more than once and leave the window once.
 */
export class SignatureIndex {
  private readonly counts = new Map<string, number>();
  private basis: readonly string[] | undefined;

  /** The index of `window`; rebuilt only if it is not the window this index last followed. */
  of(window: readonly string[]): { has(signature: string): boolean } {
    if (window !== this.basis) this.rebuild(window);
    return this.counts;
  }

  /** The window went from `before` to `after` by appending `added` and dropping from the front. */
  advance(before: readonly string[], added: readonly string[], after: readonly string[]): void {
    const dropped = before.length + added.length - after.length;
    if (before !== this.basis || dropped < 0 || dropped > before.length) {
      this.rebuild(after);
      return;
    }
    for (const signature of added)
      this.counts.set(signature, (this.counts.get(signature) ?? 0) + 1);
    for (let i = 0; i < dropped; i++) {
      const signature = before[i]!;
      const left = (this.counts.get(signature) ?? 0) - 1;
      if (left > 0) this.counts.set(signature, left);
      else this.counts.delete(signature);
    }
    this.basis = after;
  }

  private rebuild(window: readonly string[]): void {
    this.counts.clear();
    for (const signature of window)
      this.counts.set(signature, (this.counts.get(signature) ?? 0) + 1);
    this.basis = window;
  }
}
