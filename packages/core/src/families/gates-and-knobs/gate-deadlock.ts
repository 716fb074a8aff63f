import { SET_KNOB_TOOL } from '../../guard-seam/built-in-tool-names.js';
import type { GateDescriptor } from './gate-types.js';

export interface MissingTools {
  gate: string;
  tools: string[];
  /** `declared`: from `requiresTools`; `instructions`: tool names the instructions mention. */
  source: 'declared' | 'instructions';
}

// Tool-like names in instructions: `backticked` identifiers and snake_case words (run_tests).
const BACKTICKED = /`([A-Za-z][\w-]{0,63})`/g;
const SNAKE_CASE = /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g;

/** Tool names a gate's instructions refer to, as far as the text shows them. */
export function toolsMentioned(instructions: string): string[] {
  const names = new Set<string>();
  for (const match of instructions.matchAll(BACKTICKED)) {
    if (match[1]?.includes('_')) names.add(match[1]);
  }
  for (const match of instructions.matchAll(SNAKE_CASE)) names.add(match[0]);
  names.delete(SET_KNOB_TOOL);
  return [...names];
}

/**
 * `toolsMentioned` per instructions text: the check runs on every render, the text rarely
 * changes. Bounded, since instructions may be built from changing state.
 */
const mentionedCache = new Map<string, readonly string[]>();
const MENTIONED_CACHE_CAP = 256;

function mentionedIn(instructions: string): readonly string[] {
  let names = mentionedCache.get(instructions);
  if (names === undefined) {
    if (mentionedCache.size >= MENTIONED_CACHE_CAP) mentionedCache.clear();
    names = Object.freeze(toolsMentioned(instructions));
    mentionedCache.set(instructions, names);
  }
  return names;
}

/**
 * Gates that could never be satisfied with the tools rendered now. `requiresTools` is the
 * authority when given (an empty list turns the check off); otherwise the tool names the
 * instructions mention are checked, so "Run run_tests" without a run_tests tool is caught.
 */
export function findMissingTools(
  gates: ReadonlyArray<{ name: string; descriptor: GateDescriptor }>,
  renderedTools: ReadonlySet<string>,
): MissingTools[] {
  const missing: MissingTools[] = [];
  for (const gate of gates) {
    const declared = gate.descriptor.requiresTools;
    const needed = declared ?? mentionedIn(gate.descriptor.instructions);
    const tools = needed.filter((t) => !renderedTools.has(t));
    if (tools.length > 0) {
      missing.push({
        gate: gate.name,
        tools,
        source: declared !== undefined ? 'declared' : 'instructions',
      });
    }
  }
  return missing;
}

export function describeMissingTools(entry: MissingTools): string {
  const names = entry.tools.map((t) => `"${t}"`).join(', ');
  const plural = entry.tools.length > 1;
  const why =
    entry.source === 'declared'
      ? "Render the tool, or drop it from the gate's requiresTools."
      : `Its instructions mention ${plural ? 'them' : 'it'}. Render the tool, or set the gate's requiresTools to the tools it really needs (requiresTools: [] turns this check off).`;
  return `Gate "${entry.gate}" needs tool${plural ? 's' : ''} ${names} to be satisfied, but ${plural ? 'they are' : 'it is'} not rendered. ${why}`;
}
