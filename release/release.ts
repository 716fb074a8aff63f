import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { packAll, removeDist } from './pack-all.js';
import { cleanEnv, publishedPackages, ROOT, step } from './workspace.js';

const exec = promisify(execFile);

/**
 * `pnpm release [--dry-run]`: builds and packs every published package, runs the packed tests
 * on the tarballs (publint, are-the-types-wrong, a project installed from them with npm running
 * its tests and agent, the docs' package facts), then publishes with provenance what the
 * registry does not have yet (`changeset publish`: npm records where and how each package was
 * built; it needs a CI with an OIDC token, see docs/releasing.md). `--dry-run` stops short of
 * publishing: it asks the registry which versions it lacks (a read) and has npm check each
 * tarball as `npm publish --dry-run` does. No credentials needed. `--no-registry` (only with
 * `--dry-run`) leaves those two registry reads out: `pnpm test` runs it so, because its result
 * must not change without a commit (the registry's answers do, and an unreachable registry made
 * the dry run fail).
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'dry-run': { type: 'boolean', default: false },
      'no-registry': { type: 'boolean', default: false },
    },
  });
  const dryRun = values['dry-run'];
  const askRegistry = !values['no-registry'];
  if (!askRegistry && !dryRun) {
    fail(
      '--no-registry is for a dry run (pnpm release --dry-run --no-registry): a release publishes to the registry.',
    );
  }
  const pending = pendingChangesets();
  if (pending.length > 0 && !dryRun) {
    fail(
      `${pending.length} changeset(s) not applied yet (${pending.join(', ')}). Run \`pnpm version-packages\`, ` +
        'review and commit the new versions and changelogs, then release that commit.',
    );
  }
  if (!dryRun) {
    preflight();
    // @agate/core's build emits its declarations without checking them (`tsc --noCheck`):
    // `pnpm test` checks the same sources before its dry run, and a real release does it here.
    say('Type-checking the sources (pnpm typecheck)');
    step('pnpm', ['-s', 'typecheck']);
  }

  const out = join(ROOT, 'packed');
  try {
    say(`Building and packing every published package into ${out}`);
    const packed = packAll({ out, keepDist: !dryRun });
    // A dry run's registry reads need only the tarballs: they go on while the packed tests run.
    const publish = (file: string) =>
      exec('npm', ['publish', `./${file}`, '--dry-run', '--provenance', '--access', 'public'], {
        cwd: out,
        env: cleanEnv(),
      });
    // `--no-registry`: none of these reads (what `pnpm test` runs).
    const preview = dryRun && askRegistry;
    const plan = preview
      ? exec('pnpm', ['exec', 'changeset', 'publish-plan'], { cwd: ROOT, env: cleanEnv() })
      : undefined;
    const accepted = preview ? Promise.all(packed.map((pkg) => publish(pkg.file))) : undefined;
    // Awaited below; a failure before then (the packed tests) must not also be unhandled.
    plan?.catch(() => {});
    accepted?.catch(() => {});
    say('Checking the tarballs and a project installed from them (vitest.packed.config.ts)');
    step('pnpm', ['exec', 'vitest', 'run', '--config', 'vitest.packed.config.ts'], ROOT, {
      AGATE_PACKED_DIR: out,
    });
    if (dryRun) {
      if (plan !== undefined && accepted !== undefined) {
        say('What a release would publish (the registry is asked which versions it lacks)');
        const { stdout, stderr } = await plan;
        process.stdout.write(stdout + stderr);
        await accepted;
      }
      say(
        `Dry run done: ${packed.length} tarballs in ${out} pass` +
          (askRegistry
            ? '; npm accepts each for publishing'
            : ' (the registry not asked: `pnpm release --dry-run` shows what a release would publish)') +
          (pending.length > 0 ? ` (${pending.length} changeset(s) to apply first).` : '.'),
      );
      return;
    }
    say('Publishing what the registry lacks, with provenance, and tagging it in git');
    step('pnpm', ['exec', 'changeset', 'publish']);
    say('Published. Push the new tags: git push --follow-tags');
  } catch (error) {
    process.stderr.write(`release: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  } finally {
    // A real release kept dist/ to publish from it; nothing of it may outlive the release.
    if (!dryRun) removeDist();
  }
}

/** `.changeset/*.md` files other than its README: changes `pnpm version-packages` has not applied. */
function pendingChangesets(): string[] {
  return readdirSync(join(ROOT, '.changeset')).filter(
    (f) => f.endsWith('.md') && f.toLowerCase() !== 'readme.md',
  );
}

/**
 * What npm checks only at the end of a real publish, checked before anything is built: a
 * provenance statement needs a CI's OIDC token, and the registry rejects one whose source
 * repository is not the package's `repository`.
 */
function preflight(): void {
  if (process.env.GITHUB_ACTIONS !== 'true' && process.env.GITLAB_CI !== 'true') {
    fail(
      'A release publishes with provenance, which npm can only sign in a CI with an OIDC token ' +
        '(GitHub Actions with `id-token: write`, or GitLab CI). Run the release workflow ' +
        '(.github/workflows/release.yml) instead; `pnpm release --dry-run` runs anywhere.',
    );
  }
  const repository = process.env.GITHUB_REPOSITORY;
  for (const pkg of publishedPackages()) {
    const { repository: field } = pkg.manifest;
    const url = typeof field === 'string' ? field : field?.url;
    if (url === undefined || url === '') {
      fail(
        `${pkg.name} has no "repository" in package.json; npm rejects provenance without it. ` +
          `Add { "type": "git", "url": "git+https://github.com/OWNER/REPO.git", "directory": "packages/…" }.`,
      );
    }
    if (repository !== undefined && !url.includes(`github.com/${repository}`)) {
      fail(`${pkg.name}'s repository (${url}) is not ${repository}, where this release runs.`);
    }
  }
}

const started = performance.now();

/** A step's heading, with the time since the release began (where a slow release spends it). */
function say(text: string): void {
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  process.stdout.write(`\n▸ [${seconds} s] ${text}\n`);
}

function fail(message: string): never {
  process.stderr.write(`release: ${message}\n`);
  process.exit(1);
}

await main();
