import type { ReactNode } from 'react';
import { useDeclaration } from '../../runtime/use-declaration.js';
import { type CommandGateProps, checkCommandGateProps } from './command-gate-props.js';
import { COMMAND_GATE_FAMILY } from './command-guard.js';

/**
 * A gate that runs the check itself: `<CommandGate name="tests" run="pytest -q" cwd={repo} />`
 * blocks the agent from finishing like a `<Gate>`, but no model says it is cleared: at each
 * attempt to finish, when the workspace changed since the check last passed, the host runs
 * `run` in the `<Shell>` sandbox, clears on exit 0 and otherwise refuses with the runner's
 * summary and the output's tail (docs/gates.md#commandgate). Renders nothing itself.
 */
export function CommandGate(props: CommandGateProps): ReactNode {
  checkCommandGateProps(props);
  useDeclaration('<CommandGate>', {
    kind: 'guard',
    family: COMMAND_GATE_FAMILY,
    name: `${COMMAND_GATE_FAMILY}:${props.name}`,
    config: props,
  });
  return null;
}
