import { describe, expect, it } from 'vitest';
import { PEERS_SECTION, section, sectionOf, withSection } from '../../src/docs-section.js';

describe('the generated sections of docs/performance.md', () => {
  const main = '# Performance\n\nThe main report.\n';

  it('appends a section the file does not have, and finds it again', () => {
    const doc = withSection(main, PEERS_SECTION, '## Peers\n\nfirst');
    expect(doc.startsWith(main.trimEnd())).toBe(true);
    expect(sectionOf(doc, PEERS_SECTION)).toBe(section(PEERS_SECTION, '## Peers\n\nfirst'));
  });

  it('replaces only its own section, whatever follows it', () => {
    const doc = `${withSection(main, PEERS_SECTION, 'first')}\n## After\n`;
    const next = withSection(doc, PEERS_SECTION, 'second $& $1');
    expect(next).toBe(doc.replace('first', () => 'second $& $1'));
  });

  it('is absent from a file without it, and refuses a section without its end', () => {
    expect(sectionOf(main, PEERS_SECTION)).toBeUndefined();
    const cut = section(PEERS_SECTION, 'x').split('\n')[0]!;
    expect(() => sectionOf(`${main}${cut}\n`, PEERS_SECTION)).toThrow(/no end marker/);
  });
});
