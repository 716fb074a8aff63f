import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The studio page's code, bundled: one script and one stylesheet, inlined into the HTML. */
export interface PageParts {
  script: string;
  style: string;
}

/** The page's entry: present next to this module in the sources, not in `dist/`. */
export const PAGE_ENTRY = new URL('./page/main.tsx', import.meta.url);

/**
 * Bundles the page's TSX (React and all) into one script and one stylesheet with esbuild, the
 * bundler tsx already brings. It runs at build time (`pnpm build` writes the result into
 * `dist/`) and, when the CLI runs from its sources, once on first use. Nothing is fetched: the
 * page's code comes from the installed packages.
 */
export async function bundleStudioPage(): Promise<PageParts> {
  if (!existsSync(PAGE_ENTRY)) {
    throw new Error(
      `The studio page is not built and its sources are not here (${fileURLToPath(PAGE_ENTRY)}): ` +
        'reinstall @agate/cli, or run `pnpm --filter @agate/cli build` in a clone.',
    );
  }
  let esbuild: typeof import('esbuild');
  try {
    esbuild = await import('esbuild');
  } catch (error) {
    throw new Error(
      'The studio page is bundled from its sources on first use, which needs esbuild ' +
        '(a dev dependency of @agate/cli): run `pnpm install` in the repository.',
      { cause: error },
    );
  }
  const result = await esbuild.build({
    entryPoints: [fileURLToPath(PAGE_ENTRY)],
    bundle: true,
    write: false,
    outdir: 'studio-page',
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    minify: true,
    charset: 'utf8',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  const text = (extension: string) =>
    result.outputFiles.find((file) => file.path.endsWith(extension))?.text ?? '';
  const parts = { script: text('.js'), style: text('.css') };
  // Inlined into <script> and <style>: a closing tag inside would end them early.
  if (/<\/script/i.test(parts.script) || /<\/style/i.test(parts.style)) {
    throw new Error('The studio page bundle holds a closing </script> or </style> tag.');
  }
  return parts;
}
