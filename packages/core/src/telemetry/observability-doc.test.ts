import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

const DOC = new URL('../../../../docs/observability.md', import.meta.url);
const SNAPSHOTS = ['run.spans.txt', 'checkpoint-run.spans.txt'].map(
  (name) => new URL(`__snapshots__/${name}`, import.meta.url),
);

/** Span names, attribute keys and event names of the traced runs the snapshot tests keep. */
async function emitted(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const url of SNAPSHOTS) {
    for (const line of (await readFile(url, 'utf8')).split('\n')) {
      const attribute = /^\s*· ([\w.]+) = /.exec(line);
      const event = /^\s*! ([\w.]+)/.exec(line);
      const span = /^\s*(agate\.[\w.]+)$/.exec(line);
      const name = attribute?.[1] ?? event?.[1] ?? span?.[1];
      if (name !== undefined) names.add(name);
      // An event's attributes follow its name on the same line, as `key=value`.
      if (event !== undefined) {
        for (const match of line.matchAll(/ ((?:agate|gen_ai|exception|error)\.[\w.]+)=/g)) {
          if (match[1] !== undefined) names.add(match[1]);
        }
      }
    }
  }
  return names;
}

describe('docs/observability.md', () => {
  it('documents every span, attribute and span event the traced runs carry', async () => {
    const doc = await readFile(DOC, 'utf8');
    const names = await emitted();
    expect(names.size).toBeGreaterThan(60);
    const missing = [...names].filter((name) => !doc.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });
});
