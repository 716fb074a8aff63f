import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

const DOC = new URL('../../../../docs/reliability.md', import.meta.url);
const SUITE = new URL('./', import.meta.url);

/** The first cell of every row of the "Faults tried" table, without its code marks. */
async function documentedFaults(): Promise<string[]> {
  const text = await readFile(DOC, 'utf8');
  const section = text.split('## Faults tried')[1]?.split('\n## ')[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| ---'))
    .map((line) => (line.split('|')[1]?.trim() ?? '').replaceAll('`', '')) // `<Output>` in code: the site needs it so
    .slice(1); // the header row
}

/** The name of every case in the fault suite. */
async function testedFaults(): Promise<string[]> {
  const files = (await readdir(SUITE)).filter((name) => name.endsWith('.faults.test.tsx'));
  const names: string[] = [];
  for (const file of files) {
    const source = await readFile(new URL(file, SUITE), 'utf8');
    for (const match of source.matchAll(/^\s+it\('([^']+)'/gm)) names.push(match[1] as string);
  }
  return names;
}

describe('docs/reliability.md', () => {
  it('lists every fault the suite tries, one row per case, and no other', async () => {
    const documented = await documentedFaults();
    const tested = await testedFaults();
    expect(tested.length).toBeGreaterThanOrEqual(25);
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual([...tested].sort());
  });
});
