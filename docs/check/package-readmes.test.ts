import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPORT_FOLDER } from '../../release/api-report.js';
import { publishedPackages } from '../../release/workspace.js';
import { REPOSITORY_URL, SITE_URL } from '../site/project.js';

/**
 * What a package's page on the registry shows is its README and its package.json links, read
 * outside this repository: so absolute links to the site and the repository (a tarball has no
 * `../../docs`), and the components the package exports, all of them.
 */

/** The components a package exports, read from its API reports: PascalCase functions taking `props`. */
export function exportedComponents(report: string): string[] {
  return [...report.matchAll(/^export function ([A-Z]\w*)(?:<[^(]*>)?\(props\b/gm)].map(
    (m) => m[1] as string,
  );
}

describe('package READMEs and links', () => {
  for (const pkg of publishedPackages()) {
    describe(pkg.name, () => {
      const readme = readFileSync(join(pkg.dir, 'README.md'), 'utf8');
      const manifest = pkg.manifest as typeof pkg.manifest & {
        homepage?: string;
        bugs?: { url?: string };
      };

      it('sets repository, homepage and bugs to the project', () => {
        const folder = pkg.dir.split('/').slice(-2).join('/');
        expect(manifest.repository).toEqual({
          type: 'git',
          url: `git+${REPOSITORY_URL}.git`,
          directory: folder,
        });
        expect(manifest.homepage).toBe(SITE_URL);
        expect(manifest.bugs).toEqual({ url: `${REPOSITORY_URL}/issues` });
      });

      it('links the site and the repository with absolute URLs, nothing relative', () => {
        expect(readme).toContain(`](${SITE_URL}`);
        expect(readme).toContain(`](${REPOSITORY_URL})`);
        const relative = [...readme.matchAll(/\]\((?!https?:\/\/|#)([^)]*)\)/g)].map((m) => m[1]);
        expect(relative).toEqual([]);
      });

      it('lists every component it exports', () => {
        const reports = readdirSync(join(pkg.dir, REPORT_FOLDER)).filter((f) =>
          f.endsWith('.api.md'),
        );
        const components = reports.flatMap((f) =>
          exportedComponents(readFileSync(join(pkg.dir, REPORT_FOLDER, f), 'utf8')),
        );
        const missing = components.filter((name) => !readme.includes(`\`${name}\``));
        expect(missing).toEqual([]);
      });
    });
  }

  it('reads components from a report, generic ones and multi-line props included', () => {
    const report = [
      'export function Gate(props: GateProps): ReactNode;',
      'export function Tool<S extends ZodType, O = unknown>(props: ToolProps<S, O>): ReactNode;',
      'export function System(props: {',
      'export function gate(descriptor: GateDescriptor): Readonly<GateDescriptor>;',
      'export function createSession(element: ReactElement): Session;',
    ].join('\n');
    expect(exportedComponents(report)).toEqual(['Gate', 'Tool', 'System']);
  });
});
