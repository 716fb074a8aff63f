/**
 * docs/phase-gates.md's generated tables are what `pnpm bench:replay` computes now: a change to
 * the phase gates, the outcome reader or the fixtures that moves a number fails here until
 * `pnpm bench:replay:write` rewrites them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { section, sectionOf, withSection } from '../docs-section.js';
import {
  PHASE_GATES_DOC,
  replayDocSections,
  SECTION_IDS,
  withReplaySections,
} from './replay-doc.js';

describe('docs/phase-gates.md against the replay bench', () => {
  it('holds every generated table exactly as the bench prints it', { timeout: 240_000 }, () => {
    const doc = readFileSync(PHASE_GATES_DOC, 'utf8');
    const sections = replayDocSections();
    for (const key of Object.keys(SECTION_IDS) as Array<keyof typeof SECTION_IDS>) {
      const id = SECTION_IDS[key];
      expect(sectionOf(doc, id), `${id}: run pnpm bench:replay:write`).toBe(
        section(id, sections[key]),
      );
    }
    expect(withReplaySections(doc, sections)).toBe(doc);
  });

  it('the writer replaces a section in place and appends a missing one', () => {
    const doc = `# t\n\n${section('x', 'old')}\n\ntail\n`;
    expect(withSection(doc, 'x', 'new')).toBe(`# t\n\n${section('x', 'new')}\n\ntail\n`);
    expect(withSection('# t\n', 'y', 'body')).toBe(`# t\n\n${section('y', 'body')}\n`);
  });
});
