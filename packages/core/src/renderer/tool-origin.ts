/**
 * Ready AI SDK tools that give way to any other tool of a render with the same name: an
 * `<McpServer>`'s, whose names the server chooses (a hostile one may offer `final_answer` or
 * `set_knob`). Kept beside the tool objects rather than as a `<Tool>` prop, so nothing an
 * agent's author writes can mark a tool so, and the server's own name is known for warnings.
 */
const givingWay = new WeakMap<object, string>();

/** Marks `tool` as one that gives way; `server` names where it came from (an `<McpServer name>`). */
export function markGivesWay<T extends object>(tool: T, server: string): T {
  givingWay.set(tool, server);
  return tool;
}

/** The server a tool came from when it gives way, else undefined. */
export function givesWayFor(tool: unknown): string | undefined {
  return typeof tool === 'object' && tool !== null ? givingWay.get(tool) : undefined;
}

/** A tool left out of a render because another tool has its name. */
export interface LeftOutTool {
  /** The name it would have been mounted under. */
  name: string;
  /** The `<McpServer name>` it came from. */
  server: string;
  /** What has the name: `a <Tool>`, `<McpServer name="…">`, or a guard family's own tool. */
  takenBy: string;
}
