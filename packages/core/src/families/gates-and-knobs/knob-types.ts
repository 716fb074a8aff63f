import type { ZodType } from 'zod';
import type { JsonPrimitive, JsonValue } from '../../ground/json.js';

/**
 * What a knob is (`useKnob`, `<Knob>`): a value the model may set with `set_knob`, from a closed
 * set or a schema.
 */
export interface KnobOptions<T extends JsonValue = JsonValue> {
  /** Shown to the model in `set_knob`'s description. */
  description: string;
  /** Allowed values (a closed set). Give either `options` or `schema`. */
  options?: readonly (T & JsonPrimitive)[];
  /** A zod schema the value must satisfy, for open-ended values. */
  schema?: ZodType<T>;
  /** Not an inference site: `T` comes from `options` or `schema`, so a mode knob is `'plan' | 'build'`, not `'plan'`. */
  initial: NoInfer<T>;
}

/** A knob as the runtime sees it after render. */
export interface KnobInfo {
  name: string;
  description: string;
  value: JsonValue;
  options?: readonly JsonPrimitive[];
  schema?: ZodType;
}

/**
 * The session's knob and gate methods (`session.setKnob`, `session.clearGate`), as the gates'
 * hooks call them. The session the provider gives components always has them (guard-seam/built-in-family-api.ts).
 */
export interface KnobControls {
  setKnob(name: string, value: JsonValue, by?: 'host' | 'supervisor' | 'runtime'): void;
  clearGate(name: string, by?: 'host' | 'supervisor'): void;
}
