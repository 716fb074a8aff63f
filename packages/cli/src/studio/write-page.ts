/**
 * The build step of the studio page (`pnpm build` in packages/cli, after tsc): bundles the
 * page's TSX and writes it where the built CLI reads it, `dist/studio/studio-page.json`, or
 * into the folder given as the first argument.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleStudioPage } from './bundle-page.js';

const out = process.argv[2] ?? fileURLToPath(new URL('../../dist/studio/', import.meta.url));
const parts = await bundleStudioPage();
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'studio-page.json'), JSON.stringify(parts));
process.stdout.write(
  `studio page: ${join(out, 'studio-page.json')} (${Math.round((parts.script.length + parts.style.length) / 1024)} KiB)\n`,
);
