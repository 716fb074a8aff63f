import type { JsonValue } from '../ground/json.js';

/** A string cut to `max` characters with a marker saying how much was left out. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… [${text.length - max} more characters not kept in the tick log]`;
}

/** Any value as JSON with every string cut to `max` (arrays and objects walked, depth-bounded). */
export function boundJson(value: unknown, max: number, depth = 0): JsonValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return cutText(value, max);
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'boolean') return value;
  if (depth > 20) return '[nested too deep for the tick log]';
  if (Array.isArray(value)) return value.map((item) => boundJson(item, max, depth + 1));
  if (typeof value === 'object') {
    const out: Record<string, JsonValue> = {};
    for (const [key, item] of Object.entries(value)) {
      if (item !== undefined) out[key] = boundJson(item, max, depth + 1);
    }
    return out;
  }
  return String(value);
}
