import { createRequire } from 'node:module';
import type { ReactNode } from 'react';
import type createReconcilerType from 'react-reconciler';
import { LegacyRoot } from 'react-reconciler/constants.js';
import { InvalidElementError, RenderError } from '../components/render-errors.js';
import { errorMessage } from '../ground/thrown.js';
import { hostConfig } from './host-config.js';
import type { HostContainer } from './host-tree.js';

// Loaded with require, not `import`: Node's ESM wrapper for a CommonJS package reads and lexes
// every file its `index.js` may re-export to find export names — for react-reconciler that is
// its 800 KB development build too, read on every `import('@agate/core')` (issue 51 item 4).
const requireCjs = createRequire(import.meta.url);
const createReconciler = requireCjs('react-reconciler') as typeof createReconcilerType;
const reconciler = createReconciler(hostConfig);

export interface AgateRoot {
  readonly container: HostContainer;
  /**
   * Renders and commits synchronously; throws RenderError if a component threw, or
   * InvalidElementError for elements the renderer cannot host (DOM tags).
   */
  render(element: ReactNode): void;
  /** Runs `fn` (which may set React state from outside) and commits what it scheduled. */
  flush<T>(fn: () => T): T;
  unmount(): void;
}

/**
 * A legacy (synchronous) root: `updateContainerSync` + `flushSyncWork` render and commit to
 * completion before returning, so the tree is whole when the model is called.
 */
export function createAgateRoot(): AgateRoot {
  const container: HostContainer = { kind: 'container', children: [], version: 0 };
  let pending: unknown[] = [];
  const onError = (error: unknown) => {
    pending.push(error);
  };
  const root = reconciler.createContainer(
    container,
    LegacyRoot,
    null,
    false,
    null,
    'agate',
    onError,
    // Errors an error boundary caught are the agent author's to handle; the run goes on.
    () => {},
    () => {},
    () => {},
    null,
  );

  const throwPending = () => {
    if (pending.length === 0) return;
    const [first] = pending;
    pending = [];
    // The renderer's own complaint about the tree (a DOM tag) is not a component throwing.
    if (InvalidElementError.isInstance(first)) throw first;
    throw new RenderError(`A component threw while rendering the agent: ${errorMessage(first)}`, {
      cause: first,
    });
  };

  return {
    container,
    render(element) {
      reconciler.updateContainerSync(element, root, null, null);
      reconciler.flushSyncWork();
      throwPending();
    },
    flush(fn) {
      const result = reconciler.flushSyncFromReconciler(fn);
      reconciler.flushSyncWork();
      throwPending();
      return result;
    },
    unmount() {
      reconciler.updateContainerSync(null, root, null, null);
      reconciler.flushSyncWork();
      pending = [];
    },
  };
}
