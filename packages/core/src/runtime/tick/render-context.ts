import { createElement } from 'react';
import { compileHostTree } from '../../renderer/compile.js';
import {
  COMPILED_CONTEXT,
  type CompiledContext,
  type ContextReports,
} from '../../renderer/compiled-context.js';
import { SessionProvider } from '../session-context.js';
import type { SessionCore } from '../session-core.js';

/**
 * The tick's first stage: renders the agent tree with the current state, compiles the committed
 * host tree, adds what the guard families contribute (their tools, ephemeral blocks and reports),
 * and fits it to the context budget. No model call. `session.render()` is this stage alone.
 */
export function renderContext(core: SessionCore): CompiledContext {
  // A session disposed while it runs stops at its next render.
  core.assertUsable();
  core.resources.beginRender();
  const element = createElement(
    SessionProvider,
    { value: { session: core.session, state: core.state, registry: core.registry } },
    core.element,
  );
  core.root.render(element);
  const tree = compileHostTree(core.root.container, core.budget.active);
  const added = core.guards.render(tree);
  // A server's tool under a name that is taken: left out, said once, and the run goes on.
  for (const left of added.leftOut) {
    core.warnOnce(
      `mcp-tool-name-taken:${left.server}:${left.name}`,
      'mcp-tool-name-taken',
      `<McpServer name="${left.server}"> offers a tool named "${left.name}", and ${left.takenBy} ` +
        `has that name: the server's tool is left out. To mount it, give the server a prefix ` +
        `(prefix="${left.server}" mounts it as "${left.server}_${left.name}").`,
    );
  }
  const compiled: CompiledContext = {
    system: tree.system,
    messages: tree.messages,
    tools: added.tools,
    ephemeral: [
      ...added.ephemeral,
      ...core.state.notices.map((text) => ({ text, source: 'runtime' })),
    ],
    // Every family gives its reports on every render (see GuardContribution.reports).
    ...(added.reports as ContextReports),
  };
  const context = core.budget.apply(compiled, tree, core.state.tick + 1);
  Object.defineProperty(context, COMPILED_CONTEXT, { value: true });
  core.guards.check(context);
  core.lastContext = context;
  return context;
}
