/** A plain-text table: columns padded to their widest cell, two spaces apart, no trailing spaces. */
export function formatTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/** One line of at most `length` characters: newlines shown as `⏎`, the rest cut with `…`. */
export function preview(text: string, length: number): string {
  const flat = text.replaceAll(/\r?\n/g, '⏎');
  return flat.length > length ? `${flat.slice(0, Math.max(0, length - 1))}…` : flat;
}

/** `2026-11-23T10:01:02.345Z` → `2026-11-23 10:01:02Z`: to the second, still unambiguous UTC. */
export function shortTime(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})/.exec(iso);
  return match ? `${match[1]} ${match[2]}Z` : iso;
}

/** Output values (tool results) as one string: strings as they are, the rest as JSON. */
export function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
