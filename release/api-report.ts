import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import {
  CompilerState,
  Extractor,
  ExtractorConfig,
  ExtractorLogLevel,
  type ExtractorMessage,
  type IConfigFile,
} from '@microsoft/api-extractor';
import { packAll } from './pack-all.js';
import { type PackageManifest, publishedPackages, ROOT } from './workspace.js';

/**
 * The public API of each published package, recorded as API Extractor reports: one
 * `api/<entry>.api.md` per entry point of its `exports` (`.` is `index`, `./guards` is
 * `guards`), made from the `.d.ts` files its tarball ships. The packed tests
 * (release/api-report.test.ts) compare them with the checked-in ones, so a change to the
 * public API shows in review; `pnpm api:update` writes them anew.
 *
 * API Extractor (7.60) analyses one entry point per run (`mainEntryPointFilePath`), so each
 * entry gets its own run and report; the runs of one package share one TypeScript program
 * (`CompilerState` with every entry as an `additionalEntryPoints`).
 */
export const REPORT_FOLDER = 'api';

/** One entry point of a package: where its report goes and the `.d.ts` it is made from. */
export interface ApiEntry {
  /** The `exports` key: `.`, `./guards`. */
  subpath: string;
  /** The report's file name: `index.api.md`, `guards.api.md`. */
  report: string;
  /** The `types` condition's file, relative to the package folder. */
  types: string;
}

/** The entry points of `exports` that have types, in the order they are listed. */
export function apiEntries(manifest: Pick<PackageManifest, 'exports'>): ApiEntry[] {
  const { exports } = manifest;
  if (typeof exports !== 'object' || exports === null) return [];
  return Object.entries(exports as Record<string, unknown>).flatMap(([subpath, target]) => {
    const types = (target as { types?: unknown } | null)?.types;
    if (typeof types !== 'string') return [];
    const name = subpath === '.' ? 'index' : subpath.replace(/^\.\//, '').replaceAll('/', '-');
    return [{ subpath, report: `${name}.api.md`, types }];
  });
}

/**
 * The reports of the package in `packageDir` (its package.json and built files, as unpacked
 * from its tarball), by file name. Its imports (`ai`, `react`, `zod`, `@types/node`) resolve
 * from the folders above, as they would in a project that installed it.
 */
export function apiReports(packageDir: string): Map<string, string> {
  const manifest = JSON.parse(
    readFileSync(join(packageDir, 'package.json'), 'utf8'),
  ) as PackageManifest;
  const entries = apiEntries(manifest);
  const reports = new Map<string, string>();
  if (entries.length === 0) return reports;
  const temp = mkdtempSync(join(tmpdir(), 'agate-api-'));
  try {
    const configs = entries.map((entry) => extractorConfig(packageDir, entry, entries, temp));
    const [first] = configs;
    if (first === undefined) return reports;
    const compilerState = CompilerState.create(first, {
      additionalEntryPoints: configs.map((config) => config.mainEntryPointFilePath),
    });
    for (const [index, config] of configs.entries()) {
      const problems = runExtractor(config, compilerState);
      const entry = entries[index] as ApiEntry;
      if (problems.length > 0) {
        throw new Error(
          `API Extractor failed on ${manifest.name}'s ${entry.subpath} (${entry.types}):\n${problems.join('\n')}`,
        );
      }
      reports.set(entry.report, withoutLocations(readFileSync(join(temp, entry.report), 'utf8')));
    }
    return reports;
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/**
 * The report without the file and line its closing warnings point at
 * (`// dist/components/message.d.ts:10:5 - (ae-forgotten-export) ...`), and those warnings in
 * name order: where a file is and in what order files are read change when files move or
 * lines are added, which is no change to the API.
 */
function withoutLocations(report: string): string {
  const lines = report.replace(/^\/\/ \S+\.d\.[cm]?ts:\d+:\d+ - \(/gm, '// (').split('\n');
  const first = lines.findIndex((line) => line.startsWith('// ('));
  if (first === -1) return lines.join('\n');
  let end = first;
  while (lines[end]?.startsWith('// (')) end += 1;
  const warnings = [...new Set(lines.slice(first, end))].sort();
  return [...lines.slice(0, first), ...warnings, ...lines.slice(end)].join('\n');
}

function extractorConfig(
  packageDir: string,
  entry: ApiEntry,
  entries: ApiEntry[],
  reportFolder: string,
): ExtractorConfig {
  return ExtractorConfig.prepare({
    // Made here, not read from an api-extractor.json: the project folder is given below.
    configObjectFullPath: undefined,
    packageJsonFullPath: resolve(packageDir, 'package.json'),
    configObject: extractorConfigObject(packageDir, entry, entries, reportFolder),
  });
}

/**
 * The API Extractor settings the reports are made with; the docs site (docs/site/api-models.ts)
 * makes its doc models with the same ones, so the reference shows what the reports check.
 */
export function extractorConfigObject(
  packageDir: string,
  entry: ApiEntry,
  entries: ApiEntry[],
  reportFolder: string,
): IConfigFile {
  const none = { logLevel: ExtractorLogLevel.None };
  return {
    projectFolder: resolve(packageDir),
    mainEntryPointFilePath: resolve(packageDir, entry.types),
    bundledPackages: [],
    newlineKind: 'lf',
    compiler: {
      overrideTsconfig: {
        compilerOptions: {
          target: 'ES2023',
          lib: ['ES2023', 'DOM'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          jsx: 'react-jsx',
          strict: true,
          skipLibCheck: true,
          types: ['node'],
        },
        files: entries.map((e) => resolve(packageDir, e.types)),
      },
    },
    apiReport: {
      enabled: true,
      reportFileName: entry.report,
      reportFolder,
      reportTempFolder: reportFolder,
      includeForgottenExports: false,
    },
    docModel: { enabled: false },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    messages: {
      compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Error } },
      extractorMessageReporting: {
        default: { logLevel: ExtractorLogLevel.Warning },
        // Agate marks no release stages (@public, @beta): every exported name is public.
        'ae-missing-release-tag': none,
        // Types a signature uses that this entry does not export: kept in the report.
        'ae-forgotten-export': { logLevel: ExtractorLogLevel.Warning, addToApiReportFile: true },
      },
      // The doc comments are for readers, not TSDoc: their syntax is not checked.
      tsdocMessageReporting: { default: none },
    },
  };
}

/**
 * The declarations an API report marks `(undocumented)`: `Name` for a top-level one,
 * `Name.member` for a member (the report puts the mark on the line above each). The packed
 * tests keep the checked-in reports equal to what API Extractor makes, so reading them is
 * reading what the published `.d.ts` documents.
 */
export function undocumentedIn(report: string): string[] {
  const lines = report.split('\n');
  const found: string[] = [];
  let parent = '';
  for (const [index, line] of lines.entries()) {
    const top =
      /^export (?:declare )?(?:abstract )?(?:interface|type|class|function|const|namespace|enum) (\w+)/.exec(
        line,
      );
    if (top?.[1] !== undefined) parent = top[1];
    if (!line.trimEnd().endsWith('(undocumented)')) continue;
    const next = lines[index + 1] ?? '';
    const own = /^export (?:declare )?(?:abstract )?\w+ (\w+)/.exec(next)?.[1];
    if (own !== undefined) {
      found.push(own);
      continue;
    }
    const member = /^\s+(?:(?:readonly|static|get|set|protected|abstract) )*(\w+|\(|new)/.exec(
      next,
    )?.[1];
    found.push(`${parent}.${member === '(' ? '(call)' : (member ?? '?')}`);
  }
  return found;
}

/** The checked-in reports of a package folder, by file name. */
export function checkedInReports(packageDir: string): Map<string, string> {
  const folder = join(packageDir, REPORT_FOLDER);
  let files: string[];
  try {
    files = readdirSync(folder).filter((f) => f.endsWith('.api.md'));
  } catch {
    return new Map();
  }
  return new Map(files.map((f) => [f, readFileSync(join(folder, f), 'utf8')]));
}

/** Unpacks a tarball into `dir/package` and returns that folder. */
export function unpack(tarball: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const result = spawnSync('tar', ['-xzf', tarball, '-C', dir], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`tar could not unpack ${tarball}: ${result.stderr}`);
  return join(dir, 'package');
}

/**
 * Where a package's tarball is unpacked to be reported on: inside the package's folder, so
 * its imports resolve from the package's own node_modules (its peers, `@types/react`) and the
 * repository's (`@types/node`), as from an installed copy's.
 */
export const UNPACKED = '.api-check';

/**
 * `pnpm api:update`: builds and packs the published packages (as `pnpm release` does),
 * reports on each tarball's entry points and writes the reports to `packages/<name>/api/`,
 * removing reports of entry points that are gone.
 */
function main(): void {
  const out = mkdtempSync(join(tmpdir(), 'agate-api-packed-'));
  try {
    const packed = packAll({ out });
    for (const pkg of publishedPackages()) {
      const tarball = packed.find((p) => p.name === pkg.name);
      if (tarball === undefined) throw new Error(`${pkg.name} was not packed`);
      const unpackDir = join(pkg.dir, UNPACKED);
      rmSync(unpackDir, { recursive: true, force: true });
      try {
        const reports = apiReports(unpack(join(out, tarball.file), unpackDir));
        const folder = join(pkg.dir, REPORT_FOLDER);
        const stale = [...checkedInReports(pkg.dir).keys()].filter((f) => !reports.has(f));
        for (const file of stale) rmSync(join(folder, file));
        if (reports.size > 0) mkdirSync(folder, { recursive: true });
        for (const [file, text] of reports) {
          const path = join(folder, file);
          const before = checkedInReports(pkg.dir).get(file);
          writeFileSync(path, text);
          const what = before === undefined ? 'new' : before === text ? 'unchanged' : 'updated';
          process.stdout.write(`${relative(ROOT, path)}: ${what}\n`);
        }
        for (const file of stale)
          process.stdout.write(`${relative(ROOT, join(folder, file))}: removed\n`);
      } finally {
        rmSync(unpackDir, { recursive: true, force: true });
      }
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main();
}

/**
 * API Extractor on one entry point, sharing `compilerState`: its errors, one line each (empty
 * when it succeeded). Only errors matter; what else it says is in the report (forgotten exports).
 */
export function runExtractor(config: ExtractorConfig, compilerState: CompilerState): string[] {
  const problems: string[] = [];
  const result = Extractor.invoke(config, {
    localBuild: true,
    compilerState,
    messageCallback: (message: ExtractorMessage) => {
      if (message.logLevel === ExtractorLogLevel.Error)
        problems.push(message.formatMessageWithLocation(''));
      message.handled = true;
    },
  });
  if (!result.succeeded && problems.length === 0) problems.push('API Extractor did not succeed.');
  return problems;
}
