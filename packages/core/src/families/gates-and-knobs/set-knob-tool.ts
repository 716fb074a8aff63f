import { z } from 'zod';
import { SET_KNOB_TOOL } from '../../guard-seam/built-in-tool-names.js';
import type { CompiledTool } from '../../renderer/compiled-context.js';
import type { GateInfo } from './gate-types.js';
import type { KnobInfo } from './knob-types.js';

export const setKnobInput = z.object({
  name: z.string().describe('The knob or gate to change.'),
  value: z
    .union([z.string(), z.number(), z.boolean()])
    .describe('The new value; see the tool description for what each knob allows.'),
});

export type SetKnobInput = z.infer<typeof setKnobInput>;

/**
 * One line per knob and gate: names, allowed values and who may clear. Gate states are left
 * out on purpose: they change on most edits, and a tool definition that changes would break
 * provider prompt caches. The model sees a gate's state through its ephemeral element and
 * the refusal notices. A knob's value changes only when someone sets it, so it is shown.
 */
export function describeSetKnob(knobs: readonly KnobInfo[], gates: readonly GateInfo[]): string {
  const lines = [
    'Change one knob or gate per call: {"name": <knob or gate>, "value": <new value>}. Rendered knobs and gates:',
  ];
  for (const gate of gates) {
    const who =
      gate.clearableBy === 'model'
        ? 'you may clear it'
        : gate.clearableBy === 'host'
          ? 'only the host clears it, when it sees the evidence'
          : 'only a supervisor clears it';
    lines.push(
      `- ${gate.name} (gate; values: "inactive" clears it, "deferred" acknowledges it and keeps working but still blocks finishing, "active"; ${who}): ${gate.description}`,
    );
  }
  for (const knob of knobs) {
    lines.push(
      `- ${knob.name} (knob, now ${JSON.stringify(knob.value)}; ${allowedValues(knob)}): ${knob.description}`,
    );
  }
  return lines.join('\n');
}

function allowedValues(knob: KnobInfo): string {
  if (knob.options !== undefined) {
    return `values: ${knob.options.map((o) => JSON.stringify(o)).join(', ')}`;
  }
  if (knob.schema !== undefined) {
    try {
      const { $schema: _, ...schema } = z.toJSONSchema(knob.schema, { unrepresentable: 'any' });
      return `value matching ${JSON.stringify(schema)}`;
    } catch {
      return 'a value its description allows';
    }
  }
  return 'a string, number or boolean';
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
