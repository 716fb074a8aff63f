import {
  checkPackage,
  createPackageFromTarballData,
  type Problem,
  type ResolutionKind,
} from '@arethetypeswrong/core';
import { problemAffectsResolutionKind, problemKindInfo } from '@arethetypeswrong/core/problems';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';

/**
 * The resolutions are-the-types-wrong checks that apply to an ESM-only package: its CLI's
 * `--profile esm-only` (no `node10`, whose resolution ignores `exports`, and no `require` from
 * CommonJS under `node16`).
 */
const ESM_ONLY_RESOLUTIONS: readonly ResolutionKind[] = ['node16-esm', 'bundler'];

/** publint's findings on a tarball, errors and warnings both (its `--strict`), one line each. */
export async function publintProblems(tarball: Uint8Array): Promise<string[]> {
  const { messages, pkg } = await publint({
    pack: { tarball: tarball.slice().buffer },
    strict: true,
    level: 'warning',
  });
  return messages.map(
    (m) => `${m.type}: ${formatMessage(m, pkg, { color: false }) ?? m.code} (${m.code})`,
  );
}

/**
 * are-the-types-wrong's problems on a tarball (the library behind `attw`, so TypeScript loads
 * once for every package), for the resolutions an ESM-only package is used under.
 */
export async function typesProblems(tarball: Uint8Array): Promise<string[]> {
  const result = await checkPackage(createPackageFromTarballData(tarball));
  if (!result.types) return ['no types: the package ships no .d.ts for its entry points'];
  return result.problems
    .filter((problem) =>
      ESM_ONLY_RESOLUTIONS.some((kind) => problemAffectsResolutionKind(problem, kind, result)),
    )
    .map(describe);
}

function describe(problem: Problem): string {
  const info = problemKindInfo[problem.kind];
  const where = 'entrypoint' in problem ? ` at ${problem.entrypoint}` : '';
  const how = 'resolutionKind' in problem ? ` (${problem.resolutionKind})` : '';
  return `${info.title}${where}${how}: ${info.description} ${info.docsUrl}`;
}
