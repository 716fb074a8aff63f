import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  configuredHooksPath,
  HOST_RUN_DIRS,
  HOST_RUN_FILES,
  hostRunPlan,
  placeholderExcludes,
} from './host-run-files.js';

const base = mkdtempSync(join(tmpdir(), 'agate-host-run-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

let n = 0;
function tree(files: Record<string, string | null>): string {
  const root = join(base, `t${n++}`);
  mkdirSync(root);
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, path);
    if (content === null) mkdirSync(full, { recursive: true });
    else {
      mkdirSync(join(full, '..'), { recursive: true });
      writeFileSync(full, content);
    }
  }
  return root;
}

const repo = (prefix = '') => ({
  [`${prefix}.git/hooks`]: null,
  [`${prefix}.git/objects`]: null,
  [`${prefix}.git/HEAD`]: 'ref: refs/heads/main\n',
  [`${prefix}.git/config`]: '[core]\n\tbare = false\n',
  [`${prefix}.git/info/exclude`]: '*.log\n',
});

describe('host-run files (pure plan over a real folder)', () => {
  it('protects what exists and holds a place for what does not, at the top of each writable folder', () => {
    const root = tree({ ...repo(), '.bashrc': 'export A=1\n', '.vscode/settings.json': '{}' });
    const plan = hostRunPlan([root]);
    expect(plan.pins).toEqual([join(root, '.git')]);
    expect(plan.readOnly).toEqual(
      expect.arrayContaining([
        join(root, '.bashrc'),
        join(root, '.vscode'),
        join(root, '.git', 'hooks'),
        join(root, '.git', 'config'),
      ]),
    );
    const placeholders = new Map(plan.placeholders.map((p) => [p.path, p]));
    for (const name of HOST_RUN_FILES.filter((f) => f !== '.bashrc')) {
      expect(placeholders.get(join(root, name))?.kind, name).toBe('file');
    }
    expect(placeholders.has(join(root, '.idea'))).toBe(true);
    // `.claude` is absent: one placeholder there stops both .claude/commands and .claude/agents.
    expect(placeholders.get(join(root, '.claude'))).toEqual({
      path: join(root, '.claude'),
      kind: 'file',
      content: '',
    });
    // No commondir: a placeholder naming the git directory itself, as no file does.
    expect(placeholders.get(join(root, '.git', 'commondir'))?.content).toBe('.\n');
    expect(HOST_RUN_DIRS).toContain('.vscode');
  });

  it('holds the place of .git itself where the folder is no repository yet', () => {
    const root = tree({ 'src/index.ts': '' });
    const plan = hostRunPlan([root]);
    expect(plan.placeholders).toContainEqual({
      path: join(root, '.git'),
      kind: 'dir',
      content: '',
    });
    expect(plan.pins).toEqual([]);
  });

  it('a repository without a hooks folder gets an empty one standing in', () => {
    const root = tree({ '.git/HEAD': 'ref: refs/heads/main\n', '.git/config': '' });
    const plan = hostRunPlan([root]);
    expect(plan.placeholders).toContainEqual({
      path: join(root, '.git', 'hooks'),
      kind: 'dir',
      content: '',
    });
  });

  it('finds nested repositories, their submodules and a configured hooks folder, and pins the way to them', () => {
    const root = tree({
      ...repo(),
      '.git/config': '[core]\n\thooksPath = tools/hooks\n[remote "origin"]\n\thooksPath = no\n',
      'tools/hooks/pre-commit': '#!/bin/sh\n',
      ...repo('packages/lib/'),
      'packages/lib/.git/modules/vendor/dep/HEAD': 'ref: refs/heads/main\n',
      'packages/lib/.git/modules/vendor/dep/hooks/.keep': '',
      'packages/app/.vscode/tasks.json': '{}',
      'node_modules/pkg/.git/hooks/pre-commit': '',
      'a/b/c/d/.git/hooks/x': '',
    });
    const plan = hostRunPlan([root]);
    expect(plan.pins).toEqual(
      expect.arrayContaining([
        join(root, 'packages'),
        join(root, 'packages', 'lib'),
        join(root, 'packages', 'lib', '.git'),
        join(root, 'packages', 'lib', '.git', 'modules', 'vendor', 'dep'),
      ]),
    );
    expect(plan.readOnly).toEqual(
      expect.arrayContaining([
        join(root, 'tools', 'hooks'),
        join(root, 'packages', 'lib', '.git', 'hooks'),
        join(root, 'packages', 'lib', '.git', 'config'),
        join(root, 'packages', 'lib', '.git', 'modules', 'vendor', 'dep', 'hooks'),
        join(root, 'packages', 'app', '.vscode'),
      ]),
    );
    // node_modules is not looked into, and nothing deeper than three folders down.
    expect(plan.readOnly.some((p) => p.includes('node_modules'))).toBe(false);
    expect(plan.readOnly.some((p) => p.includes(join('a', 'b', 'c', 'd')))).toBe(false);
    // Below the top, absent ones get no placeholder, but for the git files that lie in wait
    // for a setting the host may turn on later (a nested repository's config.worktree).
    expect(
      plan.placeholders
        .filter((p) => p.path.includes('packages'))
        .map((p) => p.path.slice(root.length + 1))
        .sort(),
    ).toEqual([
      join('packages', 'lib', '.git', 'config.worktree'),
      join('packages', 'lib', '.git', 'modules', 'vendor', 'dep', 'config.worktree'),
      join('packages', 'lib', '.git', 'modules', 'vendor', 'dep', 'info'),
    ]);
    expect(plan.readOnly).toContain(join(root, 'packages', 'lib', '.git', 'info'));
  });

  it("covers git's per-worktree config and info/ in the repository and in each linked worktree (issue 48)", () => {
    const root = tree({
      ...repo(),
      '.git/config':
        '[core]\n\trepositoryformatversion = 1\n[extensions]\n\tworktreeConfig = true\n',
      '.git/config.worktree': '[core]\n\tsparseCheckout = true\n',
      '.git/info/sparse-checkout': '/*\n',
      '.git/worktrees/feature/HEAD': 'ref: refs/heads/feature\n',
      '.git/worktrees/feature/commondir': '../..\n',
      '.git/worktrees/feature/gitdir': '/elsewhere/feature/.git\n',
      '.git/worktrees/bare/HEAD': 'ref: refs/heads/bare\n',
      '.git/worktrees/bare/config.worktree': '',
    });
    const plan = hostRunPlan([root]);
    const git = join(root, '.git');
    expect(plan.readOnly).toEqual(
      expect.arrayContaining([
        join(git, 'config.worktree'),
        join(git, 'info'),
        join(git, 'worktrees', 'feature', 'commondir'),
        join(git, 'worktrees', 'feature', 'gitdir'),
        join(git, 'worktrees', 'bare', 'config.worktree'),
      ]),
    );
    expect(plan.pins).toEqual(
      expect.arrayContaining([join(git, 'worktrees', 'feature'), join(git, 'worktrees', 'bare')]),
    );
    const placeholders = plan.placeholders
      .filter((p) => p.path.startsWith(`${git}/`))
      .map((p) => `${p.path.slice(git.length + 1)} ${p.kind}`);
    expect(placeholders.sort()).toEqual([
      'commondir file',
      `${join('worktrees', 'bare', 'info')} dir`,
      `${join('worktrees', 'feature', 'config.worktree')} file`,
      `${join('worktrees', 'feature', 'info')} dir`,
    ]);
    // The top of a fresh repository: an empty config.worktree and info/ stand in.
    const fresh = tree({ '.git/hooks': null, '.git/HEAD': 'ref: refs/heads/main\n' });
    const freshPlan = hostRunPlan([fresh]);
    expect(freshPlan.placeholders).toEqual(
      expect.arrayContaining([
        { path: join(fresh, '.git', 'config.worktree'), kind: 'file', content: '' },
        { path: join(fresh, '.git', 'info'), kind: 'dir', content: '' },
      ]),
    );
  });

  it('follows a .git file to the git directory it names, and that one to its common directory', () => {
    const root = tree({
      ...repo('main/'),
      'main/.git/worktrees/feature/HEAD': 'ref: refs/heads/feature\n',
      'main/.git/worktrees/feature/commondir': '../..\n',
      'feature/.git': 'gitdir: ../main/.git/worktrees/feature\n',
    });
    const plan = hostRunPlan([join(root, 'feature'), join(root, 'main')]);
    expect(plan.readOnly).toContain(join(root, 'feature', '.git'));
    expect(plan.readOnly).toContain(
      join(root, 'main', '.git', 'worktrees', 'feature', 'commondir'),
    );
    expect(plan.pins).toContain(join(root, 'main', '.git', 'worktrees', 'feature'));
    expect(plan.readOnly).toContain(join(root, 'main', '.git', 'hooks'));
  });

  it('leaves out what lies outside the writable folders, and a name under a file', () => {
    const root = tree({ '.claude': 'not a folder' });
    const outside = tree({ ...repo() });
    symlinkSync(join(outside, '.git'), join(root, 'linked'));
    const plan = hostRunPlan([root]);
    expect(plan.readOnly).toContain(join(root, '.claude'));
    expect(plan.placeholders.some((p) => p.path.startsWith(join(root, '.claude', '')))).toBe(false);
    expect([...plan.pins, ...plan.readOnly].some((p) => p.startsWith(outside))).toBe(false);
  });

  it('adds the placeholders at the top of a repository to what git leaves untracked', () => {
    const root = tree({ ...repo() });
    const [exclude] = placeholderExcludes(
      [root],
      [
        join(root, '.bashrc'),
        join(root, '.vscode'),
        join(root, '.git', 'commondir'),
        join(root, 'sub', '.x'),
      ],
    );
    expect(exclude).toEqual({
      path: join(root, '.git', 'info', 'exclude'),
      content:
        '*.log\n# <Shell> sandbox: placeholders for absent host-run files\n/.bashrc\n/.vscode\n',
    });
    expect(placeholderExcludes([tree({})], [join(root, '.bashrc')])).toEqual([]);
  });

  it('reads core.hooksPath as git does: the last one in [core] wins', () => {
    const root = tree({
      config: '[core]\n\thooksPath = a\n[user]\n\thooksPath = b\n[CORE]\n  HooksPath = "c d"\n',
      empty: '[core]\n\tbare = false\n',
    });
    expect(configuredHooksPath(join(root, 'config'))).toBe('c d');
    expect(configuredHooksPath(join(root, 'empty'))).toBeUndefined();
    expect(configuredHooksPath(join(root, 'missing'))).toBeUndefined();
  });
});
