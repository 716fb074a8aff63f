/**
 * A tap on the `generateText` calls Agate's built `dist/` makes: the arguments it prepared for
 * each AI SDK call, exactly as passed, so the same calls can be made alone (the "own tick" row).
 * Agate's code is not changed for it: a module hook (`registerHooks`, in this thread) gives
 * `@agate/core`'s `dist/` an `ai` module that is the real one but for `generateText`, which
 * hands its argument to the tap, when one is set, and calls the real function. Every other
 * importer of `ai` (the bench's own replay included) gets the real module. What it adds to a
 * tick is one function call and one property read.
 *
 * Must run before anything imports `@agate/core` (the module graph resolves `ai` when it loads):
 * own-tick/child.ts registers it first, then imports the measurement dynamically.
 */
import { registerHooks } from 'node:module';

const TAP = Symbol.for('agate.bench.generateTextTap');
const SCHEME = 'agate-bench-tap:';
/** `@agate/core`'s built files, in the workspace or installed. */
const AGATE_DIST = /\/(?:packages\/core|@agate\/core)\/dist\//;

type Tap = (request: unknown) => void;

let registered = false;

export function registerSdkTap(): void {
  if (registered) return;
  registered = true;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      if (specifier !== 'ai' || !AGATE_DIST.test(context.parentURL ?? '')) {
        return nextResolve(specifier, context);
      }
      const real = nextResolve(specifier, context);
      return {
        url: `${SCHEME}${encodeURIComponent(real.url)}`,
        format: 'module',
        shortCircuit: true,
      };
    },
    load(url, context, nextLoad) {
      if (!url.startsWith(SCHEME)) return nextLoad(url, context);
      const real = JSON.stringify(decodeURIComponent(url.slice(SCHEME.length)));
      const tap = `globalThis[Symbol.for(${JSON.stringify(TAP.description)})]`;
      return {
        format: 'module',
        shortCircuit: true,
        source: [
          `export * from ${real};`,
          `import { generateText as real } from ${real};`,
          // A local export takes precedence over the star export of the same name.
          `export function generateText(request) { const tap = ${tap}; if (tap !== undefined) tap(request); return real(request); }`,
        ].join('\n'),
      };
    },
  });
}

/** Calls `tap` with the arguments of every `generateText` call Agate makes until `untap()`. */
export function tapGenerateText(tap: Tap): () => void {
  if (!registered) throw new Error('registerSdkTap() before @agate/core is imported');
  (globalThis as Record<symbol, Tap | undefined>)[TAP] = tap;
  return () => {
    (globalThis as Record<symbol, Tap | undefined>)[TAP] = undefined;
  };
}
