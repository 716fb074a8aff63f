import { InvalidElementError } from '../components/render-errors.js';

/** What kind of work a tool call is. Discovery is not progress; search, read, patch and verify are. */
export const TOOL_CATEGORIES = ['discovery', 'search', 'read', 'patch', 'verify', 'other'] as const;

/** What kind of work a tool call is, for `<PhaseGates>`. */
export type ToolCategory = (typeof TOOL_CATEGORIES)[number];

/**
 * A `<Tool category>`: one category for every call, `'shell'` to classify each call's command
 * (`input.command`, or `shellCommand(input)`), or a function of the call's input giving its
 * category or the ordered categories of its parts.
 */
export type ToolCategoryProp<I = never> =
  | ToolCategory
  | 'shell'
  | ((input: I) => ToolCategory | readonly ToolCategory[]);

export function isToolCategory(value: unknown): value is ToolCategory {
  return typeof value === 'string' && (TOOL_CATEGORIES as readonly string[]).includes(value);
}

/** Checked at render, so a typo fails where it is written and names the allowed values. */
export function checkCategoryProp(tool: string, category: unknown): void {
  if (category === undefined || category === 'shell' || typeof category === 'function') return;
  if (isToolCategory(category)) return;
  throw new InvalidElementError(
    `<Tool name="${tool}" category=${JSON.stringify(category)}> has an unknown category. Use one of ` +
      `${[...TOOL_CATEGORIES, 'shell'].map((c) => `"${c}"`).join(', ')}, or a function of the input.`,
  );
}
