import { useCallback } from 'react';
import type { JsonValue } from '../../ground/json.js';
import { useSessionContext } from '../../runtime/session-context.js';
import { useDeclaration } from '../../runtime/use-declaration.js';
import type { KnobControls, KnobOptions } from './knob-types.js';
import { validateKnobOptions } from './knob-values.js';

/**
 * Model-controlled state: the model changes it through `set_knob`; the host through `set`.
 * The value persists in session state (and snapshots).
 */
export function useKnob<T extends JsonValue>(
  name: string,
  options: KnobOptions<T>,
): [T, (value: T) => void] {
  validateKnobOptions(name, options as unknown as KnobOptions, 'useKnob()');
  const session = useDeclaration('useKnob()', {
    kind: 'knob',
    name,
    options: options as unknown as KnobOptions,
  }).session as unknown as KnobControls;
  const { state } = useSessionContext('useKnob()');
  const value = (state.guards.gates.knobs[name] ?? options.initial) as T;
  const set = useCallback((next: T) => session.setKnob(name, next, 'host'), [session, name]);
  return [value, set];
}
