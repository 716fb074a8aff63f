import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CompilerState, ExtractorConfig } from '@microsoft/api-extractor';
import { ApiModel, type ApiPackage } from '@microsoft/api-extractor-model';
import {
  type ApiEntry,
  apiEntries,
  extractorConfigObject,
  runExtractor,
} from '../../release/api-report.js';
import type { PackageManifest } from '../../release/workspace.js';

/** One entry point's doc model: what `import … from '<importPath>'` gives. */
export interface EntryModel {
  /** `@agate/core`, `@agate/core/guards`. */
  importPath: string;
  packageName: string;
  entry: ApiEntry;
  apiPackage: ApiPackage;
}

/**
 * The doc models (API Extractor's `.api.json`) of every entry point of the packages laid out
 * in `packageDirs` (see declarations.ts), made with the settings of the API reports
 * (release/api-report.ts). `@agate/*` imports between them resolve to those layouts through
 * `paths`, so no package has to be built first. The `.api.json` files stay in `workDir`.
 */
export function entryModels(packageDirs: string[], workDir: string): EntryModel[] {
  const manifests = packageDirs.map(
    (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageManifest,
  );
  const paths: Record<string, string[]> = {};
  for (const [i, manifest] of manifests.entries()) {
    for (const entry of apiEntries(manifest)) {
      paths[importPath(manifest.name, entry)] = [resolve(packageDirs[i] as string, entry.types)];
    }
  }
  // Every entry's config, then one TypeScript program for all of them (one per package took
  // three times as long: each loaded @agate/core, React and the AI SDK's types again).
  const runs = manifests.flatMap((manifest, i) => {
    const packageDir = packageDirs[i] as string;
    const entries = apiEntries(manifest);
    return entries.map((entry) => {
      const object = extractorConfigObject(packageDir, entry, entries, workDir);
      // `overrideTsconfig` is a tsconfig.json as an object; the reports' always has compilerOptions.
      const tsconfig = object.compiler?.overrideTsconfig as {
        compilerOptions: Record<string, unknown>;
      };
      tsconfig.compilerOptions.paths = paths;
      const name = `${manifest.name.replace(/^@/, '').replace('/', '-')}.${entry.report.replace(/\.api\.md$/, '')}`;
      const config = ExtractorConfig.prepare({
        configObjectFullPath: undefined,
        packageJsonFullPath: resolve(packageDir, 'package.json'),
        configObject: {
          ...object,
          apiReport: { enabled: false, reportFileName: entry.report },
          docModel: { enabled: true, apiJsonFilePath: join(workDir, `${name}.api.json`) },
        },
      });
      return { manifest, entry, config };
    });
  });
  const [first] = runs;
  if (first === undefined) return [];
  const compilerState = CompilerState.create(first.config, {
    additionalEntryPoints: runs.map((run) => run.config.mainEntryPointFilePath),
  });
  const models: EntryModel[] = [];
  for (const { manifest, entry, config } of runs) {
    const problems = runExtractor(config, compilerState);
    if (problems.length > 0) {
      throw new Error(
        `API Extractor could not model ${manifest.name}'s ${entry.subpath}:\n${problems.join('\n')}`,
      );
    }
    const apiPackage = new ApiModel().loadPackage(config.apiJsonFilePath);
    models.push({
      importPath: importPath(manifest.name, entry),
      packageName: manifest.name,
      entry,
      apiPackage,
    });
  }
  return models;
}

/** What a project imports an entry point as: `@agate/core`, `@agate/core/guards`. */
export function importPath(packageName: string, entry: Pick<ApiEntry, 'subpath'>): string {
  return entry.subpath === '.'
    ? packageName
    : `${packageName}/${entry.subpath.replace(/^\.\//, '')}`;
}
