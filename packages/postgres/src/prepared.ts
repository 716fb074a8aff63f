import { createHash } from 'node:crypto';
import type pg from 'pg';

/** Statement names by text: the texts are the store's own, a few per schema. */
const names = new Map<string, string>();

/**
 * A query sent as a named prepared statement: each connection parses and plans it once, then
 * only binds and runs it (a save's statements spent about as long being planned as run). The
 * name is derived from the text, so two schemas' statements on one pool never share a name.
 * Only for statements whose result columns are listed (a `select *` would fail on a connection
 * that prepared it before a migration added a column).
 */
export function prepared(text: string, values: unknown[]): pg.QueryConfig {
  let name = names.get(text);
  if (name === undefined) {
    name = `agate_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
    names.set(text, name);
  }
  return { name, text, values };
}
