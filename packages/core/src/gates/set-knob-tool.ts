import { z } from 'zod';
import type { CompiledTool } from '../renderer/compiled-context.js';
import type { KnobInfo } from './knob-types.js';
import type { GateInfo } from './types.js';

export const SET_KNOB_TOOL = 'set_knob';

export const setKnobInput = z.object({
  name: z.string().describe('The knob or gate to change.'),
  value: z
    .union([z.string(), z.number(), z.boolean()])
    .describe('The new value; see the tool description for what each knob allows.'),
});

export type SetKnobInput = z.infer<typeof setKnobInput>;

/** One line per knob and gate: the model learns names, current values and allowed values here. */
export function describeSetKnob(knobs: readonly KnobInfo[], gates: readonly GateInfo[]): string {
  const lines = ['Change one knob or gate. Knobs and gates now rendered:'];
  for (const gate of gates) {
    const who =
      gate.clearableBy === 'model'
        ? 'you may clear it'
        : gate.clearableBy === 'host'
          ? 'only the host clears it'
          : 'only a supervisor clears it';
    lines.push(
      `- ${gate.name} (gate, now ${gate.state}; values: inactive, deferred, active; ${who}): ${gate.description}`,
    );
  }
  for (const knob of knobs) {
    const allowed =
      knob.options !== undefined
        ? `values: ${knob.options.map((o) => JSON.stringify(o)).join(', ')}`
        : 'any value its description allows';
    lines.push(
      `- ${knob.name} (knob, now ${JSON.stringify(knob.value)}; ${allowed}): ${knob.description}`,
    );
  }
  return lines.join('\n');
}

/** The runtime-provided tool; `apply` changes exactly one knob or throws a readable error. */
export function createSetKnobTool(
  knobs: readonly KnobInfo[],
  gates: readonly GateInfo[],
  apply: (input: SetKnobInput) => string,
): CompiledTool {
  return {
    name: SET_KNOB_TOOL,
    description: describeSetKnob(knobs, gates),
    inputSchema: setKnobInput,
    execute: ((input: SetKnobInput) => apply(input)) as CompiledTool['execute'],
    source: 'runtime',
  };
}
