import { rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  apiEntries,
  apiReports,
  checkedInReports,
  REPORT_FOLDER,
  UNPACKED,
  unpack,
} from './api-report.js';
import { publishedPackages, ROOT } from './workspace.js';

/**
 * The public API does not change unseen: each published package's entry points, as its
 * tarball's `.d.ts` files declare them, match the reports checked in under `api/`
 * (release/api-report.ts). A change that alters the API fails here until the reports are
 * written anew with `pnpm api:update` and committed, so the review shows it.
 */
const { dir, packed } = inject('packedRun');
const HOW =
  'If the change is meant, run `pnpm api:update` and commit the reports (and add a migration note to docs/migrating.md for a name that moved or went away).';

const packages = publishedPackages().filter((pkg) => apiEntries(pkg.manifest).length > 0);

afterAll(() => {
  for (const pkg of packages) rmSync(join(pkg.dir, UNPACKED), { recursive: true, force: true });
});

describe.each(packages.map((pkg) => [pkg.name, pkg] as const))('%s', (_name, pkg) => {
  it('declares the API its checked-in reports record, entry point by entry point', () => {
    const tarball = packed.find((p) => p.name === pkg.name);
    if (tarball === undefined) throw new Error(`${pkg.name} was not packed`);
    const unpackDir = join(pkg.dir, UNPACKED);
    rmSync(unpackDir, { recursive: true, force: true });
    const actual = apiReports(unpack(join(dir, tarball.file), unpackDir));
    const recorded = checkedInReports(pkg.dir);
    const folder = relative(ROOT, join(pkg.dir, REPORT_FOLDER));
    expect(
      [...recorded.keys()].sort(),
      `the reports in ${folder}/ are not one per entry point of "exports". ${HOW}`,
    ).toEqual([...actual.keys()].sort());
    for (const [file, text] of actual) {
      expect(text, `${folder}/${file} does not match the package's API. ${HOW}`).toBe(
        recorded.get(file),
      );
    }
  });
});
