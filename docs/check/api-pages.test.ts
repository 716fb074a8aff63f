import { describe, expect, it } from 'vitest';
import { anchorOf, entryPagePath, escapeMarkdown } from '../site/api-pages.js';

describe('the API reference pages', () => {
  it('names a page after its entry point', () => {
    expect(entryPagePath('@agate/core')).toBe('api/core');
    expect(entryPagePath('@agate/core/guards')).toBe('api/core-guards');
    expect(entryPagePath('create-agate')).toBe('api/create-agate');
  });

  it('keeps the case of anchors, so Gate and gate are two', () => {
    expect(anchorOf('Gate')).not.toBe(anchorOf('gate'));
    expect(anchorOf('a b<c>')).toBe('a-b-c-');
  });

  it('escapes what markdown or the page would read as markup in TSDoc text', () => {
    expect(escapeMarkdown('<Output> *x* [y](z) a|b `c` #d & e')).toBe(
      '&lt;Output&gt; \\*x\\* \\[y\\](z) a\\|b \\`c\\` \\#d &amp; e',
    );
  });
});
