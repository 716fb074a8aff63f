import { createElement, type ReactNode } from 'react';
import type { ToolCategory } from '../../checks/tool-category.js';
import type { CompiledTool } from '../../renderer/compiled-context.js';
import { toolsFor } from './phase-messages.js';
import type { PhaseToolCategories, PhaseTools } from './phase-types.js';

// A size marker (`7b`, `1.5b`, `70b`, `8x7b`) decides; else the family does.
const SIZE = /(?:^|[^\d.])(?:(\d+)x)?(\d+(?:\.\d+)?)b(?![a-z])/i;
const LARGE_FAMILY =
  /gpt-4(?!o?-mini)|gpt-5(?!-(?:mini|nano))|\bo[134](?:-|$)|claude|gemini(?!.*flash-lite)|grok|deepseek-(?:v3|r1|chat|reasoner)|mistral-(?:large|medium)|command-r-plus|kimi|glm-4\.[5-9]/i;

/**
 * Whether a model id names a small model: 14B parameters or fewer by its size marker, or, with
 * none, any model not of a family known to be large (an unknown local model gets the minimal
 * prompt, which is safe for every size).
 */
export function isSmallModel(modelId: string): boolean {
  const size = SIZE.exec(modelId);
  if (size) return Number(size[1] ?? 1) * Number(size[2]) <= 14;
  return !LARGE_FAMILY.test(modelId);
}

const ORDER: ReadonlyArray<[ToolCategory, string]> = [
  ['search', 'Search'],
  ['read', 'Read'],
  ['patch', 'Change'],
  ['verify', 'Verify'],
];

/**
 * The system prompt that goes with phase gates: minimal for small models (one rule, the tools
 * by category), detailed for large ones (the workflow step by step). Both list the real tools.
 */
export function phasePrompt(
  modelId: string,
  tools: readonly CompiledTool[] | PhaseToolCategories | PhaseTools,
): string {
  const byCategory = normalize(tools);
  const list = (c: ToolCategory) => toolsFor(byCategory, c);
  if (isSmallModel(modelId)) {
    return [
      'You are a coding assistant. Use tools to solve the task.',
      '',
      'CRITICAL RULE: Never finish until you have:',
      `1. Searched and read the relevant files (${list('search')}; ${list('read')})`,
      `2. Made the change (${list('patch')})`,
      `3. Verified it after your last change (${list('verify')})`,
    ].join('\n');
  }
  return [
    'You are a coding assistant with repository tools. Work in this order:',
    `1. Search: find the relevant code (${list('search')}).`,
    `2. Read: read the files you found before changing them (${list('read')}).`,
    `3. Change: make the smallest change that solves the task (${list('patch')}).`,
    `4. Verify: run the tests or a script that shows the fix works, after your last change (${list('verify')}). A check that did not run (command not found, missing file) verifies nothing.`,
    '5. Finish only when the change is made and verified; remove scratch files you created, and verify again if you change the work afterwards.',
    '',
    'Available tools by kind:',
    ...ORDER.map(([c, label]) => `- ${label}: ${list(c)}`),
    ...(byCategory.byCategory.discovery?.length
      ? [`- Look around (not progress on its own): ${byCategory.byCategory.discovery.join(', ')}`]
      : []),
  ].join('\n');
}

function normalize(tools: readonly CompiledTool[] | PhaseToolCategories | PhaseTools): PhaseTools {
  if (Array.isArray(tools)) {
    const out: PhaseTools = { byCategory: {}, shell: [], dynamic: [] };
    for (const t of tools as readonly CompiledTool[]) {
      const c = t.guard?.category;
      if (c === 'shell') out.shell.push(t.name);
      else if (typeof c === 'function') out.dynamic.push(t.name);
      else if (typeof c === 'string') out.byCategory[c] = [...(out.byCategory[c] ?? []), t.name];
    }
    return out;
  }
  if ('byCategory' in tools && 'shell' in tools && Array.isArray((tools as PhaseTools).shell))
    return tools as PhaseTools;
  const out: PhaseTools = { byCategory: {}, shell: [], dynamic: [] };
  for (const [name, c] of Object.entries(tools as PhaseToolCategories)) {
    if (c === 'shell') out.shell.push(name);
    else out.byCategory[c] = [...(out.byCategory[c] ?? []), name];
  }
  return out;
}

/** Marks where `<PhasePrompt>` goes; the phase family fills it in from the rendered tools. */
export const PHASE_PROMPT_MARK = '\u2063agate:phase-prompt:';
const MARK_END = '\u2063';
const MARK_PATTERN = new RegExp(`${PHASE_PROMPT_MARK}([^${MARK_END}]*)${MARK_END}`, 'g');

/**
 * `phasePrompt(model, tools)` as system text, with the tools this render actually offers. The
 * tools are only known once the whole tree is compiled, so this renders a marker that the
 * phase-gates family replaces while the context is compiled.
 */
export function PhasePrompt(props: { model: string }): ReactNode {
  return createElement(
    'agate-system',
    null,
    `${PHASE_PROMPT_MARK}${encodeURIComponent(props.model)}${MARK_END}`,
  );
}

/** Replaces `<PhasePrompt>` markers in compiled system text. */
export function fillPhasePrompt(system: string, tools: readonly CompiledTool[]): string {
  if (!system.includes(PHASE_PROMPT_MARK)) return system;
  return system.replace(MARK_PATTERN, (_m, model: string) =>
    phasePrompt(decodeURIComponent(model), tools),
  );
}
