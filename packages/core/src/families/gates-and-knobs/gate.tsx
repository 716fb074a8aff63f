import type { ReactNode } from 'react';
import type { GateDescriptor } from './gate-types.js';
import { useGate } from './use-gate.js';

/** Props of `<Gate>`: its name and its descriptor. */
export type GateProps = GateDescriptor & { name: string };

/** Declarative `useGate`: declares the gate and renders its instructions when engaged. */
export function Gate(props: GateProps): ReactNode {
  const { name, ...descriptor } = props;
  return useGate(name, descriptor).element;
}
