/** JSON values: session state must stay serializable so a run can resume in another process. */
export type JsonPrimitive = string | number | boolean | null;
/** Any JSON value: what knobs, guard state and tool records hold. */
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** An object that is not an array or null: what a JSON object parses to (its values unchecked). */
export function isObjectRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
