// Loaded with `node --import` before the `agate` bin: records every module the process
// resolves (import and require, packages and node: builtins) and appends their URLs, one a
// line, to the file named by AGATE_RECORD_MODULES when the process exits (appends: through
// NODE_OPTIONS, `pnpm agate` and the node it starts both record). With AGATE_RECORD_LOADS, it
// also appends to that file each URL whose source the process had read, once per read: these
// hooks are registered first, so they run last, and every read of a file passes through them.
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const out = process.env.AGATE_RECORD_MODULES;
const loadsOut = process.env.AGATE_RECORD_LOADS;
const seen = new Set();
const loads = [];
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    seen.add(resolved.url);
    return resolved;
  },
  load(url, context, nextLoad) {
    if (loadsOut) loads.push(url);
    return nextLoad(url, context);
  },
});
process.once('exit', () => {
  if (out) appendFileSync(out, `${[...seen].join('\n')}\n`);
  if (loadsOut) appendFileSync(loadsOut, `${loads.join('\n')}\n`);
});
