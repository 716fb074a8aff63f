import { InvalidElementError } from '../components/render-errors.js';

/**
 * Something a component needs opened before the model is called (an MCP server connection):
 * opened at the first tick that renders it, kept for the run, closed when the run ends.
 */
export interface SessionResource {
  /**
   * Opens the resource, or checks that it is still sound. Resolves `true` when the tree must
   * render again before the model call (its tools appeared or changed). A rejection ends the
   * run with status `error`, the session state as it was before the tick. May answer at once
   * (a plain boolean) when there is nothing to wait for, as on most ticks of an open resource.
   */
  prepare(signal: AbortSignal): boolean | Promise<boolean>;
  /** Closes it; resolves when nothing of it is left (no child process, no socket). */
  close(): Promise<void>;
}

/**
 * The session's resources, by key. Components ask for theirs while they render (`use`); the
 * tick prepares the ones the latest render asked for; the end of a run closes them all.
 */
export class SessionResources {
  private readonly byKey = new Map<string, SessionResource>();
  private readonly wanted = new Set<string>();

  /** During render: the resource under `key`, made by `create` the first time (or after a close). */
  use<R extends SessionResource>(key: string, create: () => R, matches?: (open: R) => boolean): R {
    let resource = this.byKey.get(key) as R | undefined;
    if (resource !== undefined && matches !== undefined && !matches(resource)) {
      if (this.wanted.has(key)) {
        throw new InvalidElementError(
          `Two components in one render ask for "${key}" with different settings. Give each its own name.`,
        );
      }
      // Its configuration changed: the old one is closed, the new one opens at the next prepare.
      void resource.close().catch(() => {});
      resource = undefined;
    }
    if (resource === undefined) {
      resource = create();
      this.byKey.set(key, resource);
    }
    this.wanted.add(key);
    return resource;
  }

  /** The resource under `key`, if one is open or opening (for tests and diagnostics). */
  get(key: string): SessionResource | undefined {
    return this.byKey.get(key);
  }

  /** A render starts: what it asks for replaces what the last one asked for. */
  beginRender(): void {
    if (this.wanted.size > 0) this.wanted.clear();
  }

  /** Whether the latest render asked for any resource (the tick pays nothing otherwise). */
  get active(): boolean {
    return this.wanted.size > 0;
  }

  /**
   * Opens (or checks) every resource the latest render asked for; true when one changed. A plain
   * boolean when every resource answered at once: the tick then does not wait a turn of promises.
   */
  prepare(signal: AbortSignal): boolean | Promise<boolean> {
    const answers: (boolean | Promise<boolean>)[] = [];
    let waiting = false;
    for (const key of this.wanted) {
      const answer = this.byKey.get(key)?.prepare(signal) ?? false;
      if (typeof answer !== 'boolean') waiting = true;
      answers.push(answer);
    }
    if (!waiting) return answers.includes(true);
    return Promise.all(answers).then((changed) => changed.includes(true));
  }

  /** Closes every resource; the next tick that renders one opens it again. */
  async close(): Promise<unknown[]> {
    const open = [...this.byKey.values()];
    this.byKey.clear();
    const settled = await Promise.allSettled(open.map((resource) => resource.close()));
    return settled.flatMap((s) => (s.status === 'rejected' ? [s.reason] : []));
  }
}
