// Loaded with `node --import` before the `agate` bin: records every module the process
// resolves (import and require, packages and node: builtins) and appends their URLs, one a
// line, to the file named by AGATE_RECORD_MODULES when the process exits (appends: through
// NODE_OPTIONS, `pnpm agate` and the node it starts both record).
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const out = process.env.AGATE_RECORD_MODULES;
const seen = new Set();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    seen.add(resolved.url);
    return resolved;
  },
});
process.once('exit', () => {
  if (out) appendFileSync(out, `${[...seen].join('\n')}\n`);
});
