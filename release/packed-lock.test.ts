import { describe, expect, it } from 'vitest';
import { DURABLE_AGATE_PACKAGES } from '../packages/create-agate/src/durable-template.js';
import { projectFiles } from '../packages/create-agate/src/project-files.js';
import { packageJson } from '../packages/create-agate/src/templates.js';
import { VERSION } from '../packages/create-agate/src/version.js';
import { brokenLimits } from './check-registry.js';
import type { InstallFacts } from './node-modules.js';
import {
  type DeclaredDependencies,
  fromTemplate,
  LOCKED_PROJECTS,
  type Lockfile,
  lockDrift,
  PACKED_DIR_PLACEHOLDER,
  packedRanges,
  readCommittedLock,
  StaleLockError,
  staleLock,
  toTemplate,
} from './packed-lock.js';
import { RUNTIME_LIMITS } from './packed-project.js';
import { publishedPackages, tarballName } from './workspace.js';

/** What each committed lock must agree with: the starter create-agate writes, and our packages as packed. */
function expected(): {
  roots: Record<(typeof LOCKED_PROJECTS)[number], DeclaredDependencies>;
  ours: Map<string, DeclaredDependencies>;
} {
  const packages = publishedPackages();
  const versions = new Map(packages.map((p) => [p.name, p.version]));
  // Every package a template names (the starter takes the ones it depends on).
  const tarballs = Object.fromEntries(
    DURABLE_AGATE_PACKAGES.map((name) => [
      name,
      `${PACKED_DIR_PLACEHOLDER}/${tarballName(name, versions.get(name) ?? VERSION)}`,
    ]),
  );
  const starter = JSON.parse(
    packageJson({ name: 'my-agent', agateVersion: `^${VERSION}`, tarballs }),
  ) as DeclaredDependencies;
  const durable = JSON.parse(
    projectFiles({
      name: 'durable-agent',
      agateVersion: `^${VERSION}`,
      tarballs,
      template: 'durable',
    })['package.json'] ?? '{}',
  ) as DeclaredDependencies;
  const ours = new Map(
    packages.map((p) => [
      p.name,
      {
        dependencies: packedRanges(p.manifest.dependencies, versions),
        peerDependencies: packedRanges(p.manifest.peerDependencies, versions),
      },
    ]),
  );
  return {
    roots: {
      'my-agent': starter,
      // release/packed-project.ts: the starter's dependencies alone.
      'runtime-only': { dependencies: starter.dependencies },
      'durable-agent': durable,
      'chat-agent': JSON.parse(
        projectFiles({
          name: 'chat-agent',
          agateVersion: `^${VERSION}`,
          tarballs,
          template: 'chat',
        })['package.json'] ?? '{}',
      ) as DeclaredDependencies,
    },
    ours,
  };
}

describe('the committed locks of the packed tests (release/packed-lock/)', () => {
  const { roots, ours } = expected();
  for (const project of LOCKED_PROJECTS) {
    it(`${project}: agrees with the starter and the packages' dependency ranges`, () => {
      const lock = readCommittedLock(project);
      const problems =
        lock === undefined ? ['there is no committed lock'] : staleLock(lock, roots[project], ours);
      // The message names the command that fixes it.
      if (problems.length > 0) throw new StaleLockError(project, problems);
    });

    it(`${project}: holds no machine path and no tarball integrity`, () => {
      const text = JSON.stringify(readCommittedLock(project));
      expect(text).not.toMatch(/file:(\/|\.\.|[A-Za-z]:)/);
      const lock = readCommittedLock(project);
      for (const [path, entry] of Object.entries(lock?.packages ?? {})) {
        if (entry.resolved?.startsWith('file:')) expect(entry.integrity, path).toBeUndefined();
        else if (path !== '') expect(entry.integrity, path).toMatch(/^sha512-/);
      }
    });
  }
});

const lock = (packages: Lockfile['packages']): Lockfile => ({ lockfileVersion: 3, packages });

const written = lock({
  '': {
    name: 'p',
    dependencies: { '@agate/core': 'file:/tmp/x/packed/agate-core-0.1.0.tgz', ai: '7.0.173' },
  },
  'node_modules/@agate/core': {
    version: '0.1.0',
    resolved: 'file:../packed/agate-core-0.1.0.tgz',
    integrity: 'sha512-changes-each-build',
    dependencies: { '@ai-sdk/mcp': '^2.0.99' },
    peerDependencies: { ai: '>=7.0.0' },
  },
  'node_modules/@ai-sdk/mcp': {
    version: '2.0.99',
    resolved: 'https://registry.npmjs.org/@ai-sdk/mcp/-/mcp-2.0.99.tgz',
    integrity: 'sha512-kept',
  },
  'node_modules/ai': {
    version: '7.0.173',
    resolved: 'https://registry.npmjs.org/ai/-/ai-7.0.173.tgz',
    integrity: 'sha512-kept',
  },
});
const root = {
  dependencies: { '@agate/core': 'file:<packed>/agate-core-0.1.0.tgz', ai: '7.0.173' },
};
const core = { dependencies: { '@ai-sdk/mcp': '^2.0.99' }, peerDependencies: { ai: '>=7.0.0' } };

describe('toTemplate / fromTemplate', () => {
  const template = toTemplate(written, '/tmp/x/packed', '/tmp/x/my-agent');

  it('replaces the tarballs folder by a placeholder and drops their integrity only', () => {
    expect(template.packages['']?.dependencies?.['@agate/core']).toBe(
      'file:<packed>/agate-core-0.1.0.tgz',
    );
    expect(template.packages['node_modules/@agate/core']?.resolved).toBe(
      'file:<packed>/agate-core-0.1.0.tgz',
    );
    expect(template.packages['node_modules/@agate/core']?.integrity).toBeUndefined();
    expect(template.packages['node_modules/ai']?.integrity).toBe('sha512-kept');
  });

  it('gives back what npm wrote, wherever the tarballs and the project are', () => {
    const back = fromTemplate(template, '/tmp/x/packed', '/tmp/x/my-agent');
    const { integrity: _dropped, ...coreEntry } =
      written.packages['node_modules/@agate/core'] ?? {};
    expect(back.packages).toEqual({ ...written.packages, 'node_modules/@agate/core': coreEntry });
    const elsewhere = fromTemplate(template, '/srv/a/b/packed', '/home/u/proj');
    expect(elsewhere.packages['']?.dependencies?.['@agate/core']).toBe(
      'file:/srv/a/b/packed/agate-core-0.1.0.tgz',
    );
    expect(elsewhere.packages['node_modules/@agate/core']?.resolved).toBe(
      'file:../../../srv/a/b/packed/agate-core-0.1.0.tgz',
    );
  });
});

describe('staleLock', () => {
  const template = toTemplate(written, '/tmp/x/packed', '/tmp/x/my-agent');
  const ours = new Map([['@agate/core', core]]);

  it('finds nothing when the lock agrees', () => {
    expect(staleLock(template, root, ours)).toEqual([]);
  });

  it('finds a project dependency the lock does not record, or records differently', () => {
    expect(
      staleLock(
        template,
        { dependencies: { ...root.dependencies, ai: '7.0.185', zod: '^4' } },
        ours,
      ),
    ).toEqual([
      `the project's dependencies.ai is "7.0.185"; the lock says "7.0.173"`,
      `the project's dependencies.zod is "^4"; the lock says absent`,
    ]);
  });

  it('finds a package of ours whose ranges moved, and a locked version outside a range', () => {
    const raised = new Map([
      ['@agate/core', { ...core, dependencies: { '@ai-sdk/mcp': '^2.1.0', undici: '^8' } }],
    ]);
    expect(staleLock(template, root, raised)).toEqual([
      `@agate/core's dependencies.@ai-sdk/mcp is "^2.1.0"; the lock says "^2.0.99"`,
      `@agate/core's dependencies.undici is "^8"; the lock says absent`,
    ]);
    // A lock whose versions moved by hand (or by a bad merge) below what a package asks for.
    const oldRoot = { dependencies: { ...root.dependencies, ai: '6.9.0' } };
    const old = lock({
      ...template.packages,
      '': { ...template.packages[''], ...oldRoot },
      'node_modules/ai': { version: '6.9.0', resolved: 'https://r/ai-6.9.0.tgz' },
    });
    expect(staleLock(old, oldRoot, ours)).toEqual([
      '@agate/core needs ai@>=7.0.0; the lock has 6.9.0',
    ]);
  });

  it('finds a nested copy where Node would find it, not the hoisted one', () => {
    const nested = lock({
      ...template.packages,
      'node_modules/@agate/core/node_modules/@ai-sdk/mcp': { version: '1.0.0' },
    });
    expect(staleLock(nested, root, ours)).toEqual([
      '@agate/core needs @ai-sdk/mcp@^2.0.99; the lock has 1.0.0',
    ]);
  });

  it("says so when one of our packages is not in the lock at all (a new tarball's deps are unchecked otherwise)", () => {
    const without = lock({ ...template.packages });
    delete without.packages['node_modules/@agate/core'];
    expect(staleLock(without, root, ours)).toEqual([
      'the project needs @agate/core@file:<packed>/agate-core-0.1.0.tgz; the lock has none',
    ]);
  });

  it('its error names the command that regenerates the locks', () => {
    expect(new StaleLockError('my-agent', ['x']).message).toMatch(
      /release\/packed-lock\/my-agent\/package-lock\.json is stale; run `pnpm packed:lock`/,
    );
  });
});

describe('packedRanges', () => {
  const versions = new Map([['@agate/core', '0.1.0']]);
  it('writes workspace ranges as pnpm pack does', () => {
    expect(
      packedRanges(
        { a: 'workspace:*', b: 'workspace:^', c: 'workspace:~', d: 'workspace:^2.0.0', e: '^1' },
        new Map([
          ['a', '1.0.0'],
          ['b', '1.0.0'],
          ['c', '1.0.0'],
        ]),
      ),
    ).toEqual({ a: '1.0.0', b: '^1.0.0', c: '~1.0.0', d: '^2.0.0', e: '^1' });
    expect(() => packedRanges({ x: 'workspace:*' }, versions)).toThrow(/x is not a package/);
  });
});

describe('lockDrift and the limits of pnpm check:registry', () => {
  const fresh = lock({
    ...written.packages,
    'node_modules/ai': { version: '7.0.185' },
    'node_modules/@ai-sdk/provider-utils': { version: '4.0.1' },
    'node_modules/ai/node_modules/@ai-sdk/provider-utils': { version: '4.0.9' },
  });

  it('reports new and changed versions, and packages installed twice', () => {
    const drift = lockDrift(written, fresh);
    expect(drift.changed).toEqual([{ name: 'ai', from: ['7.0.173'], to: ['7.0.185'] }]);
    expect(drift.added).toEqual([{ name: '@ai-sdk/provider-utils', versions: ['4.0.1', '4.0.9'] }]);
    expect(drift.duplicated).toEqual([
      { name: '@ai-sdk/provider-utils', versions: ['4.0.1', '4.0.9'] },
    ]);
    expect(lockDrift(fresh, written).removed).toEqual([
      { name: '@ai-sdk/provider-utils', versions: ['4.0.1', '4.0.9'] },
    ]);
  });

  it('breaks a limit on too many packages or bytes, or two copies of an AI SDK package', () => {
    const facts = (packages: number, bytes: number): InstallFacts => ({
      packages,
      bytes,
      diskBytes: bytes,
      sizes: [],
    });
    expect(brokenLimits(facts(33, 41e6), written)).toEqual([]);
    expect(brokenLimits(facts(RUNTIME_LIMITS.packages + 1, 63e6), fresh)).toEqual([
      `${RUNTIME_LIMITS.packages + 1} packages (at most ${RUNTIME_LIMITS.packages})`,
      '63.0 MB bytes (at most 60.0 MB)',
      '63.0 MB on disk (at most 60.0 MB)',
      'two copies of @ai-sdk/provider-utils: 4.0.1, 4.0.9',
    ]);
  });
});
