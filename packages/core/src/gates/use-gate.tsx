import { type ReactElement, useCallback } from 'react';
import { Ephemeral } from '../components/text.js';
import { useSessionContext } from '../runtime/session-context.js';
import { clearerOf, validateGateDescriptor } from './descriptor.js';
import type { KnobControls } from './knob-types.js';
import { validateKnobName } from './knob-values.js';
import { SET_KNOB_TOOL } from './set-knob-tool.js';
import type { GateDescriptor } from './types.js';
import { useDeclaration } from './use-declaration.js';

export interface GateState {
  active: boolean;
  deferred: boolean;
  /** active || deferred: the gate blocks finishing. */
  engaged: boolean;
  /** Clears the gate as the host. */
  clear: () => void;
  /** Defers the gate as the host. */
  defer: () => void;
  /** Instructions while active, one deferred line while deferred, null while inactive. */
  element: ReactElement | null;
}

/**
 * Declares a gate for as long as the component is mounted. The gate blocks exit whether or
 * not `element` is placed in the tree; `element` is what shows the model its instructions.
 */
export function useGate(name: string, descriptor: GateDescriptor): GateState {
  validateKnobName(name, 'useGate()');
  validateGateDescriptor(descriptor, `useGate("${name}")`);
  const session = useDeclaration('useGate()', { kind: 'gate', name, descriptor })
    .session as unknown as KnobControls;
  const { state } = useSessionContext('useGate()');
  const status = state.gates[name]?.state ?? descriptor.initial ?? 'inactive';
  const clear = useCallback(() => session.clearGate(name, 'host'), [session, name]);
  const defer = useCallback(() => session.setKnob(name, 'deferred', 'host'), [session, name]);
  let element: ReactElement | null = null;
  if (status === 'active') {
    element = (
      <Ephemeral key={`gate:${name}`} source={`gate:${name}`}>
        {`${descriptor.instructions}\n(Gate "${name}": ${descriptor.description}. ${clearHint(name, descriptor)})`}
      </Ephemeral>
    );
  } else if (status === 'deferred') {
    element = (
      <Ephemeral key={`gate:${name}`} source={`gate:${name}`}>
        {`Gate "${name}" is deferred: ${descriptor.description}. It still blocks finishing.`}
      </Ephemeral>
    );
  }
  return {
    active: status === 'active',
    deferred: status === 'deferred',
    engaged: status !== 'inactive',
    clear,
    defer,
    element,
  };
}

function clearHint(name: string, descriptor: GateDescriptor): string {
  switch (clearerOf(descriptor)) {
    case 'model':
      return `When done, clear it with ${SET_KNOB_TOOL} {"name":"${name}","value":"inactive"}.`;
    case 'host':
      return 'The host clears it when it sees the evidence.';
    case 'supervisor':
      return 'A supervisor clears it after review.';
  }
}
