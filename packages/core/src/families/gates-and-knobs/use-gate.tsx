import { type ReactElement, useCallback, useMemo, useRef } from 'react';
import { Ephemeral } from '../../components/text.js';
import { SET_KNOB_TOOL } from '../../guard-seam/built-in-tool-names.js';
import { useSessionContext } from '../../runtime/session-context.js';
import { useDeclaration } from '../../runtime/use-declaration.js';
import { clearerOf, validateGateDescriptor } from './gate-descriptor.js';
import type { GateDeclaration, GateDescriptor } from './gate-types.js';
import type { KnobControls } from './knob-types.js';
import { validateKnobName } from './knob-values.js';

/**
 * What `useGate` returns: the gate's state this render, the host's controls, and the element to
 * render.
 */
export interface GateState {
  /** The model must do the gate's instructions before it may finish. */
  active: boolean;
  /** Acknowledged and set aside for now (`deferred`); it still blocks finishing. */
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
export function useGate(name: string, given: GateDescriptor): GateState {
  // A gate re-renders every tick (it reads the state), and `<Gate>` hands it a new descriptor
  // object each time: kept as the previous one while every field is the same, so the
  // declaration stays the same object and the gates family keeps what it derived from it.
  const descriptor = useSameFields(given);
  const declaration = useMemo((): GateDeclaration => {
    validateKnobName(name, 'useGate()');
    validateGateDescriptor(descriptor, `useGate("${name}")`);
    return { kind: 'gate', name, descriptor };
  }, [name, descriptor]);
  const session = useDeclaration('useGate()', declaration).session as unknown as KnobControls;
  const { state } = useSessionContext('useGate()');
  const status = state.guards.gates.gates[name]?.state ?? descriptor.initial ?? 'inactive';
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

/** `value`, or the object of the previous render when it has the same keys and values. */
function useSameFields<T extends object>(value: T): T {
  const ref = useRef(value);
  if (ref.current !== value && !sameFields(ref.current, value)) ref.current = value;
  return ref.current;
}

function sameFields(a: object, b: object): boolean {
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  for (const key of keys) if (!Object.hasOwn(y, key) || x[key] !== y[key]) return false;
  return true;
}
