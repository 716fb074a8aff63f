/** Which of a server's tools an `<McpServer>` mounts, and under which names. */
export interface ToolSelection {
  /** Only these (the server's names). */
  include?: readonly string[];
  /** Not these (the server's names). */
  exclude?: readonly string[];
  /** `prefix="fs"` mounts `read_file` as `fs_read_file`. */
  prefix?: string;
}

/** Whether a server's tool is mounted. */
export function isSelected(name: string, selection: ToolSelection): boolean {
  if (selection.include !== undefined && !selection.include.includes(name)) return false;
  return !(selection.exclude?.includes(name) ?? false);
}

/**
 * The name the model sees: the prefix joined with `_`, and characters providers refuse
 * (anything but letters, digits, `_` and `-`) replaced, within the 64 most providers allow.
 * The call still goes to the server under its own name.
 */
export function mountedName(name: string, prefix: string | undefined): string {
  const joined = prefix === undefined || prefix === '' ? name : `${prefix}_${name}`;
  return joined.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64) || '_';
}
