import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { version as esbuildVersion } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledScript } from './bundled-script.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** Runs a bundle and parses the one JSON line it prints. */
const run = (bundle: string) =>
  JSON.parse(execFileSync(process.execPath, [bundle], { encoding: 'utf8' })) as Record<
    string,
    unknown
  >;

/** Every bundle these tests made. */
const made = new Set<string>();
const bundle = async (script: string) => {
  const path = await bundledScript(script);
  made.add(path);
  return path;
};

describe('bundledScript: a child script bundled once', () => {
  let dir: string;
  let helper: string;
  let script: string;
  beforeAll(() => {
    // Inside the repository (gitignored): the root's installed packages resolve from here.
    dir = mkdtempSync(join(ROOT, 'agate-test-bundle-'));
    helper = join(dir, 'helper.ts');
    script = join(dir, 'script.ts');
    writeFileSync(
      helper,
      "export const where = { url: import.meta.url, dirname: import.meta.dirname };\nexport const mark: string = 'first';\n",
    );
    writeFileSync(
      script,
      [
        "import { version } from 'esbuild';",
        // A workspace source, by path: bundled, through the `@agate/source` condition.
        `import { createMemoryStore } from ${JSON.stringify(join(ROOT, 'packages/core/src/index.ts'))};`,
        "import { mark, where } from './helper.js';",
        'const store: unknown = createMemoryStore();',
        'console.log(JSON.stringify({ ...where, mark, version, store: typeof store }));',
        '',
      ].join('\n'),
    );
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    // This file's bundles (of scripts that are gone now) leave the cache with them.
    for (const bundle of made) {
      rmSync(bundle, { force: true });
      rmSync(bundle.replace(/\.mjs$/, '.inputs.json'), { force: true });
    }
  });

  it('runs the script with each source keeping its own import.meta, and installed packages left where they are', async () => {
    const path = await bundle(script);
    expect(run(path)).toEqual({
      url: pathToFileURL(helper).href,
      dirname: dir,
      mark: 'first',
      version: esbuildVersion,
      store: 'object',
    });
    const code = readFileSync(path, 'utf8');
    // esbuild itself is imported from its installed file, not copied into the bundle.
    expect(code).toMatch(/from "\/[^"]*\/node_modules\/[^"]*esbuild[^"]*"/);
    expect(code).toContain('createMemoryStore');
  });

  it('reuses the bundle while its inputs are unchanged, and makes a new one when one changes', async () => {
    const first = await bundle(script);
    const written = statSync(first).mtimeMs;
    expect(await bundle(script)).toBe(first);
    expect(statSync(first).mtimeMs).toBe(written);
    writeFileSync(helper, readFileSync(helper, 'utf8').replace("'first'", "'second'"));
    expect(run(await bundle(script)).mark).toBe('second');
  });

  it('a script that does not compile: rejects, naming the file', async () => {
    const broken = join(dir, 'broken.ts');
    writeFileSync(broken, 'export const x = {\n');
    await expect(bundle(broken)).rejects.toThrow(/broken\.ts/);
  });
});
