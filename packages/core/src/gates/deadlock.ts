import type { GateDescriptor } from './types.js';

export interface MissingTools {
  gate: string;
  tools: string[];
}

/** Gates whose declared `requiresTools` are not rendered: they could never be satisfied. */
export function findMissingTools(
  gates: ReadonlyArray<{ name: string; descriptor: GateDescriptor }>,
  renderedTools: ReadonlySet<string>,
): MissingTools[] {
  const missing: MissingTools[] = [];
  for (const gate of gates) {
    const tools = (gate.descriptor.requiresTools ?? []).filter((t) => !renderedTools.has(t));
    if (tools.length > 0) missing.push({ gate: gate.name, tools });
  }
  return missing;
}

export function describeMissingTools(entry: MissingTools): string {
  return `Gate "${entry.gate}" needs tool${entry.tools.length > 1 ? 's' : ''} ${entry.tools
    .map((t) => `"${t}"`)
    .join(
      ', ',
    )} to be satisfied, but ${entry.tools.length > 1 ? 'they are' : 'it is'} not rendered. Render the tool, or drop it from the gate's requiresTools.`;
}
