import type { ReactNode } from 'react';
import type { JsonValue } from '../../ground/json.js';
import type { KnobOptions } from './knob-types.js';
import { useKnob } from './use-knob.js';

/** Props of `<Knob>`: its name, its options, and what to render for its value. */
export type KnobProps<T extends JsonValue> = KnobOptions<T> & {
  name: string;
  /** Render prop: what to render for the current value (for example mode-specific instructions). */
  children?: (value: T, set: (value: T) => void) => ReactNode;
};

/** Declarative `useKnob`. */
export function Knob<T extends JsonValue>(props: KnobProps<T>): ReactNode {
  const { name, children, ...options } = props;
  const [value, set] = useKnob(name, options as KnobOptions<T>);
  return children ? children(value, set) : null;
}
