import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitepress';
import { REPOSITORY_URL } from '../site/project.js';

const DOCS = join(import.meta.dirname, '..');

/** A page's title: its first `# ` heading (the sidebar shows what the page says it is). */
function titleOf(file: string): string {
  const text = readFileSync(join(DOCS, file), 'utf8');
  return /^# (.+)$/m.exec(text)?.[1]?.trim() ?? file.replace(/\.md$/, '');
}

/** The guides: every markdown file in docs/, getting started first. */
function guides() {
  const files = readdirSync(DOCS)
    .filter((f) => f.endsWith('.md') && f !== 'index.md')
    .sort((a, b) =>
      a === 'getting-started.md' ? -1 : b === 'getting-started.md' ? 1 : a.localeCompare(b),
    );
  return files.map((f) => ({ text: titleOf(f), link: `/${f.replace(/\.md$/, '')}` }));
}

/** The reference pages `pnpm docs:build` generated into docs/api/ before this config loads. */
function reference() {
  const dir = join(DOCS, 'api');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.md') && f !== 'index.md')
    .sort()
    .map((f) => ({ text: titleOf(`api/${f}`), link: `/api/${f.replace(/\.md$/, '')}` }));
}

export default defineConfig({
  title: 'Agate',
  description: 'Agents as JSX trees: gates, tools and context as components.',
  // The Pages workflow serves the site under the repository's name (AGATE_DOCS_BASE).
  base: process.env.AGATE_DOCS_BASE ?? '/',
  outDir: '.site',
  cacheDir: '../node_modules/.cache/agate/vitepress',
  srcExclude: ['check/**', 'site/**', 'node_modules/**', '.check/**'],
  // Dead links fail the build; only links to a local server a guide asks you to start
  // (Jaeger's http://localhost:16686) are not pages to check.
  ignoreDeadLinks: 'localhostLinks',
  lastUpdated: false,
  markdown: {
    config(md) {
      // Inline code is shown as written: `trigger={{ … }}` is JSX, not a Vue interpolation.
      const inline = md.renderer.rules.code_inline;
      md.renderer.rules.code_inline = (tokens, idx, options, env, self) =>
        (inline?.(tokens, idx, options, env, self) ?? '').replace(/^<code/, '<code v-pre');
    },
  },
  themeConfig: {
    search: { provider: 'local' },
    nav: [
      { text: 'Guides', link: '/getting-started' },
      { text: 'API', link: '/api/' },
    ],
    sidebar: [
      { text: 'Guides', items: guides() },
      { text: 'API reference', link: '/api/', items: reference() },
    ],
    outline: { level: [2, 3] },
    socialLinks: [{ icon: 'github', link: REPOSITORY_URL }],
  },
});
