import type { ReactNode } from 'react';
import { useDeclaration } from '../../runtime/use-declaration.js';
import {
  CONTINUE_GATE_KEY,
  type ContinueGateProps,
  checkContinueProps,
} from './continue-gate-props.js';

/**
 * Evaluated before every model call: `stop | pause | throttle | checkpoint | continue`.
 * Renders nothing the model sees; the runtime acts on the decision.
 */
export function ContinueGate(props: ContinueGateProps): ReactNode {
  // Validate on render so a bad threshold or budget fails where it is written.
  checkContinueProps(props);
  useDeclaration('<ContinueGate>', { kind: 'continue', name: CONTINUE_GATE_KEY, config: props });
  return null;
}
